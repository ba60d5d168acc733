import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BackfillActivities } from '@svc/workflow-contract/activity-types';
import { type BackfillInput, type BackfillResult, cancelBackfillSignal } from '@svc/workflow-contract/definitions';

/** Database work and run starts: retried until they work (an outage delays, never loses, a step). */
const backfill = proxyActivities<BackfillActivities>({
  startToCloseTimeout: '5m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

/** Between steps while runs are in flight (a cancel ends the wait at once). */
const STEP_INTERVAL = '1s';

/**
 * One backfill (workflow id = the backfill id). Its occurrences are in PostgreSQL
 * (`backfill_items`); each step gives the next pending ones their runs as far as the mode leaves
 * room, then the workflow waits a moment and looks again, until every occurrence was started or
 * skipped and its runs have ended. A cancel stops before the next step: what has not started never
 * will, runs in flight end on their own. Continues-as-new before its history grows large.
 */
export async function backfillWorkflow(input: BackfillInput): Promise<BackfillResult> {
  const { backfillId } = input;
  let cancelled = false;
  setHandler(cancelBackfillSignal, () => {
    cancelled = true;
  });
  let steps = input.steps ?? 0;
  for (;;) {
    const step = await backfill.stepBackfill({ backfillId });
    steps += 1;
    if (step.done || step.cancelled) {
      cancelled ||= step.cancelled;
      break;
    }
    if (cancelled) {
      // Recorded by the API before its signal: the next step cancels what is pending.
      continue;
    }
    await condition(() => cancelled, STEP_INTERVAL);
    if (!cancelled && workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof backfillWorkflow>({ ...input, steps });
    }
  }
  await backfill.finishBackfill({ backfillId });
  return { steps, cancelled };
}
