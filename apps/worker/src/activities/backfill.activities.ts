import type { Backfills } from '@svc/orchestration';
import type { BackfillActivities } from '@svc/workflow-contract/activity-types';

/** The activities of `backfillWorkflow`: the work is `Backfills`'. */
export function createBackfillActivities(backfills: Backfills): BackfillActivities {
  return {
    stepBackfill: ({ backfillId }) => backfills.step(backfillId),
    finishBackfill: ({ backfillId }) => backfills.finish(backfillId),
  };
}
