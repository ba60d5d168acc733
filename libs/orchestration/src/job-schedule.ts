import { compileSchedule, type CompileResult } from '@svc/schedule';
import type { ScheduleSnapshot } from '@svc/workflows/definitions';

/** Compiles a job's stored schedule; the anchor phases intervals and anchors relative expressions. */
export function compileJobSchedule(schedule: ScheduleSnapshot): CompileResult {
  return compileSchedule({
    expr: schedule.expr,
    kind: schedule.kind as 'auto',
    timezone: schedule.timezone,
    startsAt: schedule.startsAt ? new Date(schedule.startsAt) : null,
    endsAt: schedule.endsAt ? new Date(schedule.endsAt) : null,
    count: schedule.count,
    reference: new Date(schedule.anchor),
  });
}
