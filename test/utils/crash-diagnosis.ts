import { Client as TemporalClient, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * Evidence for an occurrence the crash scenario found wrong (issue 48's finding: an occurrence
 * with no run at all): what Temporal holds of the job's workflow, every execution of it with its
 * history (the events near the instant in full, the rest counted), and the job's run workflows.
 * Read-only; a failure to read is reported in the evidence, never thrown.
 */

const EventType = temporal.api.enums.v1.EventType;

export interface WorkflowEvidence {
  runId: string;
  status: string;
  taskQueue: string;
  startTime: string;
  closeTime: string | null;
  historyLength: number;
  /** Events within `windowMs` of the instant (and the first three of the execution), one line each. */
  events: string[];
}

export interface OccurrenceEvidence {
  jobWorkflow: WorkflowEvidence[] | string;
  runWorkflows: Array<{ id: string; status: string; startTime: string }> | string;
}

/** One line per history event: its id, time, type and what matters of it. */
export function describeEvent(event: temporal.api.history.v1.IHistoryEvent): string {
  const type = (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace('EVENT_TYPE_', '');
  const seconds = Number(event.eventTime?.seconds ?? 0);
  const time = new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
  const detail: string[] = [];
  const timer = event.timerStartedEventAttributes;
  if (timer) {
    detail.push(`fires in ${Number(timer.startToFireTimeout?.seconds ?? 0)} s, timer ${timer.timerId}`);
  }
  if (event.timerFiredEventAttributes) {
    detail.push(`timer ${event.timerFiredEventAttributes.timerId}`);
  }
  if (event.markerRecordedEventAttributes) {
    const marker = event.markerRecordedEventAttributes;
    detail.push(`${marker.markerName}${marker.failure ? ` failed: ${marker.failure.message}` : ''}`);
  }
  if (event.workflowExecutionSignaledEventAttributes) {
    detail.push(`signal ${event.workflowExecutionSignaledEventAttributes.signalName}`);
  }
  const failed = event.workflowTaskFailedEventAttributes;
  if (failed) {
    detail.push(`cause ${failed.cause}: ${failed.failure?.message?.slice(0, 300) ?? ''}`);
  }
  const timedOut = event.workflowTaskTimedOutEventAttributes;
  if (timedOut) {
    detail.push(`timeout type ${timedOut.timeoutType}`);
  }
  const started = event.workflowExecutionStartedEventAttributes;
  if (started) {
    detail.push(`task queue ${started.taskQueue?.name}, continued from ${started.continuedExecutionRunId || '-'}`);
  }
  const continued = event.workflowExecutionContinuedAsNewEventAttributes;
  if (continued) {
    detail.push(`to task queue ${continued.taskQueue?.name}`);
  }
  const completed = event.workflowTaskCompletedEventAttributes;
  if (completed?.identity) {
    detail.push(`by ${completed.identity}`);
  }
  return `${event.eventId} ${time} ${type}${detail.length > 0 ? ` (${detail.join('; ')})` : ''}`;
}

/** What Temporal holds of job `jobId`'s workflow (workflow id = job id) and its runs around `at`. */
export async function occurrenceEvidence(
  address: string,
  jobId: string,
  at: number,
  windowMs = 90_000,
): Promise<OccurrenceEvidence> {
  const connection = await Connection.connect({ address });
  try {
    const client = new TemporalClient({ connection });
    return {
      jobWorkflow: await jobWorkflowEvidence(client, jobId, at, windowMs).catch((err: Error) => err.message),
      runWorkflows: await runWorkflowsOf(client, jobId).catch((err: Error) => err.message),
    };
  } finally {
    await connection.close();
  }
}

async function jobWorkflowEvidence(
  client: TemporalClient,
  jobId: string,
  at: number,
  windowMs: number,
): Promise<WorkflowEvidence[]> {
  const executions: WorkflowEvidence[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${jobId}'` })) {
    const history = await client.workflow.getHandle(jobId, execution.runId).fetchHistory();
    const events = history.events ?? [];
    const near = events.filter((event, i) => {
      const ms = Number(event.eventTime?.seconds ?? 0) * 1000;
      return i < 3 || Math.abs(ms - at) <= windowMs;
    });
    executions.push({
      runId: execution.runId,
      status: execution.status.name,
      taskQueue: execution.taskQueue,
      startTime: execution.startTime.toISOString(),
      closeTime: execution.closeTime?.toISOString() ?? null,
      historyLength: events.length,
      events: near.map(describeEvent),
    });
  }
  return executions.sort((a, b) => a.startTime.localeCompare(b.startTime));
}

async function runWorkflowsOf(
  client: TemporalClient,
  jobId: string,
): Promise<Array<{ id: string; status: string; startTime: string }>> {
  const runs: Array<{ id: string; status: string; startTime: string }> = [];
  for await (const execution of client.workflow.list({ query: `SvcJobId = '${jobId}'` })) {
    if (execution.type !== 'jobWorkflow') {
      runs.push({
        id: execution.workflowId,
        status: execution.status.name,
        startTime: execution.startTime.toISOString(),
      });
    }
  }
  return runs;
}
