import type { JobEntity } from '@svc/persistence';
import {
  compileSchedule,
  createStepBudget,
  splitCalendarExclusions,
  type CompiledSchedule,
  type CompileResult,
} from '@svc/schedule';
import type { ScheduleSnapshot } from '@svc/workflow-contract/definitions';

/**
 * A job's schedule on its way from the request to the workflow, in one home:
 *
 * - the API's validator (apps/api/src/jobs/job-schedule.validator.ts) compiles the request and
 *   returns the {@link JobScheduleColumns} the row stores, with the schedule it compiled;
 * - {@link toScheduleSnapshot} is the row's schedule as the job workflow receives it;
 * - {@link compileJobSchedule} compiles a snapshot, for the worker's `planOccurrences` and for
 *   the API's `next_run_at`/`next_runs` ({@link nextFireTimes}), so both read the same fire times.
 */

/** The columns of a job row that hold its schedule (written together by the API's validator). */
export type JobScheduleColumns = Pick<
  JobEntity,
  | 'scheduleExpr'
  | 'scheduleKind'
  | 'scheduleCanonical'
  | 'scheduleDescription'
  | 'scheduleTimezone'
  | 'scheduleStartsAt'
  | 'scheduleEndsAt'
  | 'scheduleCount'
  | 'scheduleAnchor'
  | 'excludeCalendars'
>;

/** Workspace calendars by name → dates (`YYYY-MM-DD`), as a schedule compiles with them. */
export type CalendarDates = Readonly<Record<string, readonly string[]>>;

/** Whether the job's schedule excludes workspace calendars (its field, or `except <calendar>` in the expression). */
export function usesCalendars(
  job: Pick<JobScheduleColumns, 'scheduleExpr' | 'scheduleKind' | 'excludeCalendars'>,
): boolean {
  // `?? []`: rows built before the column existed (unit fixtures).
  return (
    (job.excludeCalendars ?? []).length > 0 ||
    (job.scheduleKind === 'natural' && splitCalendarExclusions(job.scheduleExpr) !== null)
  );
}

/** A job row's schedule as the job workflow receives it (`JobSnapshot.schedule`): plain data, ISO instants. */
export function toScheduleSnapshot(job: JobScheduleColumns & { workspaceId?: string }): ScheduleSnapshot {
  return {
    ...(usesCalendars(job) && job.workspaceId
      ? { calendars: { workspaceId: job.workspaceId, exclude: [...(job.excludeCalendars ?? [])] } }
      : {}),
    expr: job.scheduleExpr,
    kind: job.scheduleKind,
    timezone: job.scheduleTimezone,
    startsAt: job.scheduleStartsAt ? job.scheduleStartsAt.toISOString() : null,
    endsAt: job.scheduleEndsAt ? job.scheduleEndsAt.toISOString() : null,
    count: job.scheduleCount,
    anchor: job.scheduleAnchor.toISOString(),
  };
}

/**
 * Compiles a job's stored schedule; the anchor phases intervals and anchors relative expressions.
 * `calendars`: the workspace's, for a schedule that excludes some; without them the exclusions
 * are not applied (the fire times are then a superset: enough to tell whether any is left).
 */
export function compileJobSchedule(schedule: ScheduleSnapshot, calendars?: CalendarDates): CompileResult {
  return compileSchedule({
    ...(calendars ? { calendars } : {}),
    excludeCalendars: schedule.calendars?.exclude ?? [],
    expr: schedule.expr,
    kind: schedule.kind,
    timezone: schedule.timezone,
    startsAt: schedule.startsAt ? new Date(schedule.startsAt) : null,
    endsAt: schedule.endsAt ? new Date(schedule.endsAt) : null,
    count: schedule.count,
    reference: new Date(schedule.anchor),
  });
}

/**
 * Up to `count` fire times of a job's schedule strictly after `after`: from `compiled` when the
 * caller has just compiled this schedule (the validator, on create and PATCH), else compiled from
 * the row as the job workflow compiles it. None when the schedule no longer compiles or its
 * computation exceeds the budget. The budget is the step budget either way, so the answer does
 * not depend on which compile it came from or on how busy the host is.
 */
export function nextFireTimes(
  job: JobScheduleColumns,
  after: Date,
  count: number,
  compiled?: CompiledSchedule,
  calendars?: CalendarDates,
): Date[] {
  const schedule = compiled ?? compiledOrNull(job, calendars);
  if (!schedule) {
    return [];
  }
  try {
    return schedule.next(after, count, createStepBudget());
  } catch {
    return [];
  }
}

function compiledOrNull(job: JobScheduleColumns, calendars?: CalendarDates): CompiledSchedule | null {
  // The field travels in the snapshot only with a workspace; here it is given as it is.
  const result = compileJobSchedule(
    { ...toScheduleSnapshot(job), calendars: { workspaceId: '', exclude: [...(job.excludeCalendars ?? [])] } },
    calendars,
  );
  return result.ok ? result.schedule : null;
}
