import { createDeliveryActivities, type DeliveryActivityDeps } from './delivery.activities';
import { createRunActivities, type RunActivityDeps } from './runs.activities';
import { createScheduleActivities } from './schedule.activities';

export type ActivityDeps = RunActivityDeps & DeliveryActivityDeps;

/** Every activity the worker registers, built over injected dependencies (style.md rule 11). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createScheduleActivities(),
    ...createRunActivities(deps),
    ...createDeliveryActivities(deps),
  };
}
