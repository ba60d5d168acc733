import {
  condition,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { newId } from '@svc/common/ids';
import type { RunActivities, ScheduleActivities } from './activity-types';
import {
  jobChangedSignal,
  jobDeletedSignal,
  RUN_WORKFLOW,
  type JobSnapshot,
  type JobWorkflowInput,
  type RunWorkflowInput,
} from './definitions';
import { runSearchAttributes } from './search-attributes';

const { planOccurrences } = proxyLocalActivities<ScheduleActivities>({
  startToCloseTimeout: '10s',
  retry: { maximumInterval: '30s' },
});
const { markJobCompleted } = proxyActivities<RunActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumInterval: '30s' },
});

/** fire_all delivers at most this many missed occurrences per catch-up (decisions.md). */
const MAX_CATCH_UP = 100;
const HISTORY_LIMIT = 4_000;

/**
 * One per job (workflow id = job id). Owns timing: computes the next occurrence from its snapshot
 * of the job, sleeps on a timer, and starts one run workflow per occurrence. Snapshots arrive by
 * signal (PATCH, pause, resume, enable, auto-disable); deletion ends it.
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<void> {
  let snapshot = input.snapshot;
  let after = input.after ?? nowIso();
  let pending: JobSnapshot | null = null;
  let deleted = false;

  setHandler(jobChangedSignal, (next) => {
    if (next.revision > (pending ?? snapshot).revision) {
      pending = next;
    }
  });
  setHandler(jobDeletedSignal, () => {
    deleted = true;
  });
  const changed = () => deleted || pending !== null;

  while (!deleted) {
    if (pending !== null) {
      const previous: JobSnapshot = snapshot;
      snapshot = pending;
      pending = null;
      // A new version drops queued occurrences and recomputes from now (spec: PATCH); occurrences
      // while paused or disabled never exist (decisions.md → misfire_policy).
      if (snapshot.version !== previous.version || (snapshot.state === 'active' && previous.state !== 'active')) {
        after = nowIso();
      }
      continue;
    }
    if (snapshot.state !== 'active') {
      await condition(changed);
      continue;
    }
    const plan = await planOccurrences({
      schedule: snapshot.schedule,
      after,
      now: nowIso(),
      misfireThresholdMs: snapshot.misfireThresholdMs,
      maxCatchUp: MAX_CATCH_UP,
    });
    if (plan.error) {
      await condition(changed);
      continue;
    }
    if (plan.missed.length > 0 || plan.onTime.length > 0) {
      await dispatch(snapshot, plan.missed, plan.onTime);
      after = plan.scannedUntil;
      continue;
    }
    after = plan.scannedUntil;
    if (plan.next === null) {
      if (plan.ended) {
        await markJobCompleted({ jobId: snapshot.jobId, revision: snapshot.revision });
        await condition(changed);
      }
      continue;
    }
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > HISTORY_LIMIT) {
      await continueAsNew<typeof jobWorkflow>({ snapshot: pending ?? snapshot, after });
    }
    await condition(changed, Math.max(1, Date.parse(plan.next) - Date.now()));
  }
}

/** Starts the runs of due occurrences, applying the misfire policy to missed ones. */
async function dispatch(snapshot: JobSnapshot, missed: string[], onTime: string[]): Promise<void> {
  if (missed.length > 0) {
    const latest = missed[missed.length - 1];
    if (snapshot.misfirePolicy === 'fire_all') {
      for (const at of missed) {
        await startRun(snapshot, at);
      }
    } else if (snapshot.misfirePolicy === 'skip') {
      await startRun(snapshot, latest, 'misfire');
    } else {
      await startRun(snapshot, latest);
    }
  }
  for (const at of onTime) {
    await startRun(snapshot, at);
  }
}

async function startRun(snapshot: JobSnapshot, scheduledAt: string, skipReason?: 'misfire'): Promise<void> {
  const input: RunWorkflowInput = {
    runId: newId('run', Date.now()),
    jobId: snapshot.jobId,
    workspaceId: snapshot.workspaceId,
    jobVersion: snapshot.version,
    scheduledAt,
    trigger: 'schedule',
    ...(skipReason ? { skipReason } : {}),
  };
  await startChild(RUN_WORKFLOW, {
    workflowId: input.runId,
    args: [input],
    // Runs outlive the job workflow's continue-as-new; deletion cancels them explicitly.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: runSearchAttributes(input),
  });
}

function nowIso(): string {
  return new Date(Date.now()).toISOString();
}
