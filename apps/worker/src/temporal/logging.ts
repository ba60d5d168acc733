/**
 * The worker's logs (docs/operations.md → Logs): the Temporal SDK's own lines (worker state,
 * activity failures, workflow task errors, and the Rust core's lines, forwarded) go through the
 * process's pino logger like Nest's, and every line written while an activity runs carries the
 * ids of what it works on: `run_id`, `job_id`, `workspace_id` from the activity's input, and the
 * attempt number once `runAttempt` has claimed it (`addLogFields({ attempt })`).
 */
import { type LogFields, type Logger, runWithLogFields } from '@svc/common/logging';
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { RUN_FAILED } from '@svc/workflow-contract/definitions';

const LEVELS = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** Temporal's attribute names, in this service's spelling; `run_id` and `attempt` are ours. */
const RENAMED: Record<string, string> = {
  runId: 'temporal_run_id',
  workflowRunId: 'temporal_run_id',
  attempt: 'activity_attempt',
};

/**
 * The attribute under which `activityLogInterceptor` hands this service's fields (`run_id`,
 * `attempt` …) to the SDK's lines about an activity, apart from Temporal's own attributes (whose
 * `attempt` is its retry counter).
 */
export const SVC_LOG_FIELDS = 'svcLogFields';

/**
 * SDK warnings about what this service does on purpose, written at debug: the parked jobs' worker
 * registers no activities (docs/architecture.md → Idle jobs are parked), and each start would
 * otherwise warn about it.
 */
const INTENDED = new Set(['No activities registered, not polling for activity tasks']);

/**
 * Temporal's `Logger` (`Runtime.install({ logger })`) over pino. Attribute names become
 * snake_case (`workflowId` → `workflow_id`; Temporal's run id is `temporal_run_id`, its retry
 * counter `activity_attempt`, an Error `err`), the activity task token is dropped, the fields of
 * `activityLogInterceptor` are merged in, and a line about a run or job workflow names the run or
 * job (their workflow ids are the run and job ids, docs/architecture.md).
 */
export class TemporalPinoLogger implements TemporalLogger {
  constructor(private readonly logger: Logger) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const pinoLevel =
      level === 'WARN' && INTENDED.has(message)
        ? 'debug'
        : isRunFailed(message, meta)
          ? 'info'
          : (LEVELS[level] ?? 'info');
    if (!this.logger.isLevelEnabled(pinoLevel)) {
      return;
    }
    const fields: LogFields = {};
    for (const [key, value] of Object.entries(meta ?? {})) {
      if (key === 'error' && value instanceof Error) {
        fields.err = value;
      } else if (key !== 'taskToken' && key !== SVC_LOG_FIELDS && value !== undefined) {
        fields[RENAMED[key] ?? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value;
      }
    }
    Object.assign(fields, meta?.[SVC_LOG_FIELDS]);
    if (typeof fields.workflow_id === 'string') {
      if (fields.workflow_type === 'runWorkflow' && fields.run_id === undefined) {
        fields.run_id = fields.workflow_id;
      } else if (fields.workflow_type === 'jobWorkflow' && fields.job_id === undefined) {
        fields.job_id = fields.workflow_id;
      }
    }
    this.logger[pinoLevel](fields, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }

  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }

  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }

  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }

  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/**
 * The SDK's `Workflow failed` warning about a run workflow that ended Failed because its run
 * failed (`RunFailed`): the run's failure is the job's business, already logged by the
 * attempt as `attempt failed; run failed`, so this line is info, not a second warning.
 */
function isRunFailed(message: string, meta?: LogMetadata): boolean {
  const error = meta?.error as { type?: unknown } | undefined;
  return message === 'Workflow failed' && error?.type === RUN_FAILED;
}

/** The ids an activity's input names (`RunWorkflowInput`, `OpenRunsInput`, `StartQueuedRunInput` …). */
export function logFieldsOfInput(input: unknown): LogFields {
  const fields: LogFields = {};
  if (input === null || typeof input !== 'object') {
    return fields;
  }
  const { runId, jobId, workspaceId, run } = input as Record<string, unknown>;
  const queuedRunId = run !== null && typeof run === 'object' ? (run as { runId?: unknown }).runId : undefined;
  for (const [field, value] of [
    ['run_id', runId ?? queuedRunId],
    ['job_id', jobId],
    ['workspace_id', workspaceId],
  ] as const) {
    if (typeof value === 'string') {
      fields[field] = value;
    }
  }
  return fields;
}

/**
 * Opens the activity's log context (its input's ids; `addLogFields` adds more, e.g. the attempt)
 * for everything it runs, and hands the same fields to the SDK's own lines about the activity
 * ("Activity failed", "Activity completed"), which it writes after the activity returned, outside
 * that context. The SDK's "Activity started" comes before the input is read: it names the run
 * (from the workflow id), not the job.
 */
export const activityLogInterceptor: ActivityInterceptorsFactory = () => {
  const fields: LogFields = {};
  return {
    inbound: {
      execute: (input, next) => {
        Object.assign(fields, logFieldsOfInput(input.args[0]));
        return runWithLogFields(fields, () => next(input));
      },
    },
    outbound: {
      getLogAttributes: (attributes, next) => ({ ...next(attributes), [SVC_LOG_FIELDS]: { ...fields } }),
    },
  };
};
