import type { AppConfig } from '@svc/common';
import type { OccurrenceBurstsRepository } from '@svc/persistence';
import { type CalendarDates, compileJobSchedule, prepareLeadMs } from '@svc/orchestration';
import { occurrenceRunId } from '@svc/workflow-contract/ids';
import type {
  JobActivities,
  OccurrencePlan,
  ParkSettings,
  PlanOccurrencesInput,
  PlanOpenInput,
  ScheduleActivities,
  WorkspaceGate,
} from '@svc/workflow-contract/activity-types';
import type { ScheduleSnapshot } from '@svc/workflow-contract/definitions';
import { decideOpening } from '@svc/workflow-contract/occurrence-opening';
import { isMissed, plannedAt } from '@svc/workflow-contract/occurrence-rules';

export interface ScheduleActivityDeps {
  /** The burst estimate; without it (or asked without `prepare`) plans carry no lead. */
  bursts?: OccurrenceBurstsRepository;
  /**
   * `scheduler.misfire_threshold` is read here, the one source of the threshold for the job
   * workflow's plans and the attempt's claim alike; `scheduler.prepare_*` shape the lead.
   */
  config: AppConfig;
  warn?: (message: string) => void;
  /** Reads the workspace gate (the job activity's), for plans asked with `gate`. */
  readGate?: (input: { workspaceId: string; month: string }) => Promise<WorkspaceGate>;
  /**
   * Where idle jobs park: given only by a worker that serves the parked task queue, so a
   * worker without it (tests, a release that parks nothing) never sends a job where none polls.
   */
  park?: ParkSettings;
  /** Whether jobs park now (`worker.park_above_jobs`, park-gate.ts); absent: whenever `park` is given. */
  parkingApplies?: () => Promise<boolean>;
  /**
   * Opens the decided runs (the job activity's), for plans asked with `open`: without it such a
   * plan opens nothing and the workflow opens the runs itself, as before.
   */
  openRuns?: JobActivities['openRuns'];
  /** A workspace's calendars, read for a schedule that excludes some, at every plan. */
  calendarsOf?: (workspaceId: string) => Promise<CalendarDates>;
}

/** Occurrences examined per plan at most; a longer backlog continues in the next plan. */
const MAX_SCANNED = 100_000;
const CHUNK = 500;

/**
 * Schedule math for the job workflow, run as a local activity so time-zone data of the worker
 * host is recorded in history rather than re-evaluated on replay (style.md rule 13).
 */
export function createScheduleActivities(deps: ScheduleActivityDeps): ScheduleActivities {
  return {
    async planOccurrences(input: PlanOccurrencesInput): Promise<OccurrencePlan> {
      const calendars =
        input.schedule.calendars && deps.calendarsOf
          ? await deps.calendarsOf(input.schedule.calendars.workspaceId)
          : undefined;
      const plan = await planAndOpen(input, calendars);
      if (!deps.bursts || !input.prepare || plan.next === null) {
        return withPark(plan, input);
      }
      const next = plannedAt(plan.next, input.spread);
      const lead = await leadOf(next, plan, input, deps.bursts, deps.config, deps.warn);
      // A lead that reaches back to now (by the workflow's clock, as lateness is judged), in a
      // plan that opens its own runs: the occurrence opens in this plan, sparing the job a wake
      // (a timer and a workflow task on the server) while its burst is created, when it is busiest.
      const reachMs = Date.parse(next) - (Date.parse(input.now) - (input.leadMs ?? 0));
      if (deps.openRuns && input.open && !plan.opened && reachMs > 0 && reachMs <= lead.leadMs) {
        const ahead = await planAndOpen({ ...input, now: next, leadMs: reachMs }, calendars);
        if (ahead.opened) {
          if (ahead.next === null) {
            return ahead;
          }
          const counted = { ...input, prepare: { ...input.prepare, registered: next } };
          const following = plannedAt(ahead.next, input.spread);
          const nextLead = await leadOf(following, ahead, counted, deps.bursts, deps.config, deps.warn);
          return withPark({ ...ahead, ...nextLead }, input);
        }
      }
      return withPark({ ...plan, ...lead }, input);
    },
  };

  /** The occurrences due and the next one; opens the due ones when the plan is asked to. */
  async function planAndOpen(input: PlanOccurrencesInput, calendars: CalendarDates | undefined) {
    let plan = planOccurrences(input, deps.config.scheduler.misfire_threshold_ms, calendars);
    if (deps.readGate && input.gate && plan.missed.length + plan.onTime.length > 0) {
      plan = { ...plan, gate: await deps.readGate(input.gate) };
    }
    // Before the burst estimate: a retry after a failed open must not count the job twice.
    if (deps.openRuns && input.open && plan.gate) {
      plan = { ...plan, opened: await openDue(plan, plan.gate, { ...input, open: input.open }, deps.openRuns) };
    }
    return plan;
  }

  /** Where the job parks, asked once per plan, of the plan it returns. */
  async function withPark(plan: OccurrencePlan, input: PlanOccurrencesInput): Promise<OccurrencePlan> {
    if (deps.park && input.prepare && plan.next !== null && (await (deps.parkingApplies?.() ?? true))) {
      return { ...plan, park: deps.park };
    }
    return plan;
  }
}

/**
 * The job workflow's occurrence rules for an `allow` job, applied here: its decisions depend on
 * the due occurrences, the misfire policy and the gate only (no runs in flight), so the plan can
 * decide and open them in the same local activity. The decision is the workflow's own
 * (`decideOpening`, libs/workflow-contract/src/occurrence-opening.ts); run ids come from the occurrence,
 * as in the workflow, so a retry opens nothing twice.
 */
async function openDue(
  plan: OccurrencePlan,
  gate: WorkspaceGate,
  input: PlanOccurrencesInput & { open: PlanOpenInput },
  openRuns: JobActivities['openRuns'],
): Promise<NonNullable<OccurrencePlan['opened']>> {
  const { open } = input;
  const opening = decideOpening({
    job: { ...open, overlapPolicy: 'allow', schedule: input.schedule },
    due: { missed: plan.missed, onTime: plan.onTime },
    missedTotal: plan.missedTotal,
    after: input.after,
    gate,
    state: { inFlight: [], queued: null },
    newRunId: (scheduledAt) => occurrenceRunId(open.jobId, Date.parse(scheduledAt)),
    notifyJob: false,
    ...(input.spread ? { spread: input.spread } : {}),
  });
  const result = await openRuns(opening.openRuns);
  const { decisions, collapsed } = opening;
  return { decisions, collapsed, ...(result?.renamed ? { renamed: result.renamed } : {}) };
}

/**
 * Counts the job in the burst at `next` and returns the lead to prepare it with. The estimate is
 * the larger of the count planned at `next` so far and the count at the instant the job fires now
 * (complete by then; periodic schedules meet again). The estimate is an optimisation: if the
 * database cannot be asked, the plan goes on with the base lead.
 */
async function leadOf(
  next: string,
  plan: OccurrencePlan,
  input: PlanOccurrencesInput,
  bursts: OccurrenceBurstsRepository,
  config: AppConfig,
  warn?: (message: string) => void,
): Promise<{ leadMs: number; burst: number }> {
  const prepare = input.prepare!;
  const baseMs = config.scheduler.prepare_ahead_ms;
  const due = [...plan.missed, ...plan.onTime];
  // Counted at planned instants: jobs spread over a window are not one burst.
  const previous = due.length > 0 ? plannedAt(due[due.length - 1], input.spread) : null;
  let burst = 1;
  try {
    const counts = await bursts.plan(
      new Date(next),
      previous === null ? null : new Date(previous),
      prepare.registered !== next,
    );
    burst = Math.max(1, counts.next, counts.previous);
  } catch (err) {
    warn?.(`burst estimate unavailable, preparing with the base lead: ${(err as Error).message}`);
    return { leadMs: baseMs, burst };
  }
  // Other overlap policies decide against the runs in flight when the occurrence is opened:
  // opening it long before its instant would judge overlap too early. They keep the base lead.
  if (prepare.overlapPolicy !== 'allow') {
    return { leadMs: baseMs, burst };
  }
  const leadMs = prepareLeadMs({
    jobId: prepare.jobId,
    burst,
    baseMs,
    ratePerS: config.scheduler.prepare_rate,
    maxMs: config.scheduler.max_prepare_ahead_ms,
    gapMs: Date.parse(next) - Date.parse(previous ?? input.after),
    burstMayGrow: previous === null,
  });
  return { leadMs, burst };
}

/**
 * Splits the occurrences in (after, now] into on-time ones and missed ones (`isMissed` when
 * dispatched at the workflow's clock, `now` less the lead it plans with; only the latest
 * `maxCatchUp` missed kept), and finds the first one after `now`. With a start window
 * each occurrence is judged by its planned time; the occurrences returned stay nominal.
 */
export function planOccurrences(
  input: PlanOccurrencesInput,
  misfireThresholdMs: number,
  calendars?: CalendarDates,
): OccurrencePlan {
  const compiled = compileJobSchedule(input.schedule, calendars);
  if (!compiled.ok) {
    return {
      onTime: [],
      missed: [],
      missedTotal: 0,
      next: null,
      scannedUntil: input.after,
      ended: false,
      error: compiled.errors[0]?.message ?? 'invalid schedule',
    };
  }
  const now = Date.parse(input.now);
  const dispatchedAt = now - (input.leadMs ?? 0);
  const onTime: string[] = [];
  const missed: string[] = [];
  let missedTotal = 0;
  let cursor = new Date(input.after);
  let scanned = 0;
  while (scanned < MAX_SCANNED) {
    const chunk = compiled.schedule.next(cursor, CHUNK);
    if (chunk.length === 0) {
      return { onTime, missed, missedTotal, next: null, scannedUntil: maxIso(cursor, input.now), ended: true };
    }
    for (const at of chunk) {
      const t = input.spread ? Date.parse(plannedAt(at.toISOString(), input.spread)) : at.getTime();
      if (t > now) {
        return {
          onTime,
          missed,
          missedTotal,
          next: at.toISOString(),
          scannedUntil: lastOr(onTime, missed, input),
          ended: false,
        };
      }
      if (isMissed(t, dispatchedAt, misfireThresholdMs)) {
        missedTotal += 1;
        missed.push(at.toISOString());
        if (missed.length > input.maxCatchUp) {
          missed.shift();
        }
      } else {
        onTime.push(at.toISOString());
      }
    }
    scanned += chunk.length;
    cursor = chunk[chunk.length - 1];
  }
  return { onTime, missed, missedTotal, next: null, scannedUntil: cursor.toISOString(), ended: false };
}

/**
 * The occurrences strictly between `after` and `before` (ISO, ascending), at most `limit`: the
 * missed occurrences a `fire_all` catch-up does not deliver, recorded as skipped misfires.
 */
export function occurrencesBetween(
  schedule: ScheduleSnapshot,
  after: string,
  before: string,
  limit: number,
  calendars?: CalendarDates,
): string[] {
  const compiled = compileJobSchedule(schedule, calendars);
  if (!compiled.ok) {
    return [];
  }
  const end = Date.parse(before);
  const found: string[] = [];
  let cursor = new Date(after);
  while (found.length < limit) {
    const chunk = compiled.schedule.next(cursor, CHUNK);
    for (const at of chunk) {
      if (at.getTime() >= end || found.length >= limit) {
        return found;
      }
      found.push(at.toISOString());
    }
    if (chunk.length < CHUNK) {
      return found;
    }
    cursor = chunk[chunk.length - 1];
  }
  return found;
}

function lastOr(onTime: string[], missed: string[], input: PlanOccurrencesInput): string {
  if (onTime.length > 0) {
    return onTime[onTime.length - 1];
  }
  if (missed.length > 0) {
    return missed[missed.length - 1];
  }
  return input.after;
}

function maxIso(a: Date, b: string): string {
  return a.getTime() > Date.parse(b) ? a.toISOString() : b;
}
