import {
  condition,
  continueAsNew,
  patched,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { newId } from '@svc/workflow-contract/ids';
import type { ScheduleActivities } from '@svc/workflow-contract/activity-types';
import {
  JOB_PATH_PATCH,
  jobChangedSignal,
  jobDeletedSignal,
  RUN_WORKFLOW,
  type JobSnapshot,
} from '@svc/workflow-contract/definitions';
import { runSearchAttributes } from '@svc/workflow-contract/search-attributes';
import type { LegacyJobWorkflowInput, LegacyRunActivities, LegacyRunWorkflowInput } from './types.v1';

const { planOccurrences } = proxyLocalActivities<ScheduleActivities>({
  startToCloseTimeout: '10s',
  retry: { maximumInterval: '30s' },
});
const { markJobCompleted } = proxyActivities<LegacyRunActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumInterval: '30s' },
});

/** fire_all delivers at most this many missed occurrences per catch-up (decisions.md). */
const MAX_CATCH_UP = 100;
const HISTORY_LIMIT = 4_000;

/**
 * FROZEN: the job workflow as it ran before the one-activity occurrence path (recorded histories
 * `jobWorkflow-*-20261122.json` replay through it). Do not change a line that emits a command.
 *
 * Executions started before the upgrade replay through this loop; the first time the loop runs
 * past the end of their recorded history, `patched(JOB_PATH_PATCH)` is true and the execution
 * continues-as-new into the current loop, carrying its snapshot and position. Remove this file
 * once no execution started before the upgrade can still be running (they all cut over at their
 * next timer or signal).
 */
export async function legacyJobWorkflow(
  input: LegacyJobWorkflowInput,
  cutover: (carried: { snapshot: JobSnapshot; after: string }) => Promise<never>,
): Promise<void> {
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
    if (patched(JOB_PATH_PATCH)) {
      await cutover({ snapshot: pending ?? snapshot, after });
    }
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
      await continueAsNew<(carried: LegacyJobWorkflowInput) => Promise<void>>({ snapshot: pending ?? snapshot, after });
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
  const input: LegacyRunWorkflowInput = {
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
