import type {
  BackfillsRepository,
  CalendarsRepository,
  OccurrenceBurstsRepository,
  OperationsRepository,
} from '@svc/persistence';
import { Backfills, BulkOperations } from '@svc/orchestration';
import type { ParkSettings } from '@svc/workflow-contract/activity-types';
import { createBackfillActivities } from './backfill.activities';
import { createJobActivities, type JobActivityDeps } from './job.activities';
import { createLegacyActivities } from './legacy.activities';
import { createOperationActivities } from './operation.activities';
import { createRunActivities, type RunActivityDeps } from './run.activities';
import { createScheduleActivities } from './schedule.activities';

/** The job and run activities' dependencies, and what the schedule, legacy, operation and backfill ones add. */
export interface ActivityDeps extends JobActivityDeps, RunActivityDeps {
  /** The burst estimate; absent in tests that do not prepare bursts. */
  bursts?: OccurrenceBurstsRepository;
  warn?: (message: string) => void;
  /** Where idle jobs park; only with a worker on the parked task queue. */
  park?: ParkSettings;
  /** Bulk operations; absent in tests that run none. */
  operations?: OperationsRepository;
  /** Backfills; absent in tests that run none. */
  backfills?: BackfillsRepository;
  /** Whether jobs park now (`worker.park_above_jobs`); absent: whenever `park` is given. */
  parkingApplies?: () => Promise<boolean>;
  /** Workspace calendars, for schedules that exclude some; absent in tests that use none. */
  calendars?: CalendarsRepository;
}

/** Every activity the worker registers, built over injected dependencies (style.md rule 11). */
export function createActivities(deps: ActivityDeps) {
  const run = createRunActivities(deps);
  const job = createJobActivities(deps);
  return {
    ...createScheduleActivities({
      bursts: deps.bursts,
      config: deps.config,
      warn: deps.warn,
      readGate: (input) => job.readWorkspaceGate(input),
      openRuns: (input) => job.openRuns(input),
      park: deps.park,
      parkingApplies: deps.parkingApplies,
      ...(deps.calendars ? { calendarsOf: (workspaceId: string) => deps.calendars!.datesByName(workspaceId) } : {}),
    }),
    ...job,
    ...run,
    ...createLegacyActivities({ ...deps, current: run }),
    ...(deps.operations
      ? createOperationActivities(new BulkOperations({ operations: deps.operations, lifecycle: deps.lifecycle }))
      : {}),
    ...(deps.backfills
      ? createBackfillActivities(
          new Backfills({ backfills: deps.backfills, runs: deps.runs, jobs: deps.jobs, gateway: deps.gateway }),
        )
      : {}),
  };
}
