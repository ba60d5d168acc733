import type { JobEntity } from '@svc/persistence';
import { compileSchedule, createStepBudget, type CompiledSchedule, type CompileResult } from '@svc/schedule';
import type { ScheduleSnapshot } from '@svc/workflows/definitions';

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
>;

/** A job row's schedule as the job workflow receives it (`JobSnapshot.schedule`): plain data, ISO instants. */
export function toScheduleSnapshot(job: JobScheduleColumns): ScheduleSnapshot {
  return {
    expr: job.scheduleExpr,
    kind: job.scheduleKind,
    timezone: job.scheduleTimezone,
    startsAt: job.scheduleStartsAt ? job.scheduleStartsAt.toISOString() : null,
    endsAt: job.scheduleEndsAt ? job.scheduleEndsAt.toISOString() : null,
    count: job.scheduleCount,
    anchor: job.scheduleAnchor.toISOString(),
  };
}

/** Compiles a job's stored schedule; the anchor phases intervals and anchors relative expressions. */
export function compileJobSchedule(schedule: ScheduleSnapshot): CompileResult {
  return compileSchedule({
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
): Date[] {
  const schedule = compiled ?? compiledOrNull(job);
  if (!schedule) {
    return [];
  }
  try {
    return schedule.next(after, count, createStepBudget());
  } catch {
    return [];
  }
}

function compiledOrNull(job: JobScheduleColumns): CompiledSchedule | null {
  const result = compileJobSchedule(toScheduleSnapshot(job));
  return result.ok ? result.schedule : null;
}
