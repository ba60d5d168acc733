/**
 * Public types of the schedule engine, and the list of formats they derive from. Pure: no I/O,
 * no framework imports, no clock reads. `now` and the time zone are always parameters (style.md
 * rule 13).
 */

/** Formats the engine understands, in the order the API documents them. */
export const SCHEDULE_KINDS = ['natural', 'quartz', 'cron', 'rrule'] as const;
/** A format the engine understands: what a compiled schedule is, and what a job stores. */
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
/** What a request may ask for: a format, or `auto` (the default) to detect one (`detectKind`). */
export const REQUESTED_SCHEDULE_KINDS = ['auto', ...SCHEDULE_KINDS] as const;
export type RequestedScheduleKind = (typeof REQUESTED_SCHEDULE_KINDS)[number];

export interface ScheduleInput {
  /** The expression as the user typed it (at most 4096 UTF-8 bytes). */
  expr: string;
  /** Format to parse as; `auto` (default) detects. */
  kind?: RequestedScheduleKind;
  /** IANA time zone name; default `UTC`. */
  timezone?: string;
  /** Bounds that apply to every format. */
  startsAt?: Date | null;
  endsAt?: Date | null;
  /** Finite number of occurrences, counted from the series start. */
  count?: number | null;
  /**
   * Reference instant: anchors relative expressions (`in 20 minutes`, `tomorrow at 9am`) and the
   * phase of fixed intervals (`every 5 minutes` fires at reference + k * 5m). Required because the
   * engine never reads a clock.
   */
  reference: Date;
  /**
   * Workspace calendars the schedule may exclude: name → dates (`YYYY-MM-DD`), given as
   * data by the caller. A natural-language `… except holidays:de-berlin` and `excludeCalendars`
   * name them; a name not held here is an `unknown_calendar` error. Absent: the calendars named
   * are neither checked nor applied (a stateless preview; an upper bound of the fire times).
   */
  calendars?: Readonly<Record<string, readonly string[]>>;
  /** Calendars whose days have no occurrence, in the schedule's zone (a job's `exclude_calendars`). */
  excludeCalendars?: readonly string[];
}

/** One structured error; `position` and `length` count UTF-8 bytes of the original `expr`. */
export interface ScheduleError {
  /** Stable machine-readable code, e.g. `unknown_word`, `out_of_range`, `never_fires`, `budget_exceeded`. */
  kind: string;
  position: number;
  length: number;
  message: string;
  /** What the user probably meant, or null. */
  suggestion: string | null;
}

export interface CompiledSchedule {
  kind: ScheduleKind;
  /** Normalized form: RRULE parts for natural/rrule, the expression unchanged for quartz/cron. */
  canonical: string;
  /** Clear English, e.g. `Every weekday at 09:00 (Europe/Berlin)`. */
  description: string;
  timezone: string;
  /** True when the schedule has exactly one occurrence by construction (`in 20 minutes`, `at 2026-12-01 09:00`). */
  oneOff: boolean;
  /**
   * True when, for every `after` at or after the reference the schedule was compiled with,
   * `next(after, n)` depends on `after` alone (no interval phase, relative date or count anchored
   * at the reference), so fire times computed for one reference can be reused for a later one
   * (validate-cache.ts). Before the reference, a schedule anchored there has no fire times.
   * Quartz schedules count as reference-free although their search horizon is the reference's
   * year + 100; caches key them by that year.
   */
  referenceFree: boolean;
  /**
   * A proven lower bound in ms on the gap between successive fire times (min-gap.ts), when the
   * grammar can give one; validation skips sampling when it already satisfies the minimum interval.
   */
  minGapLowerBoundMs?: number;
  /**
   * When `next(after)` is not simply "the schedule's fire times after `after`": an instant `a2 >=
   * after` such that `next(after, n)` equals the fire times after `a2`, or `null` when no single
   * sequence answers for this `after` (compute `next` afresh). Quartz needs it: an `after` inside
   * the first (daylight) occurrence of a repeated hour continues from the next wall-clock time
   * resolved to its standard-time instant, skipping fire times in between; and Quartz's `W` search
   * depends on where `after` falls on the shifted day. Absent means the identity. Caches of fire
   * times (validate-cache.ts) filter at `a2`, never at `after`.
   */
  equivalentAfter?(afterMs: number): number | null;
  /**
   * Up to `count` fire times strictly after `after`, ascending, honouring startsAt/endsAt/count.
   * Fewer (or none) when the series ends. Throws ScheduleBudgetError past the cooperative budget.
   */
  next(after: Date, count: number, budget?: Budget): Date[];
  /**
   * `next` in epoch milliseconds, without a `Date` per fire time (previews and validation read
   * numbers). Optional for grammars; compiled schedules always have it.
   */
  nextTimes?(afterMs: number, count: number, budget?: Budget): number[];
}

export type CompileResult =
  | { ok: true; kindDetected: ScheduleKind; schedule: CompiledSchedule }
  | { ok: false; kindDetected: ScheduleKind | null; errors: ScheduleError[] };

/** Cooperative computation budget: loops call `check()`, which throws ScheduleBudgetError when spent. */
export interface Budget {
  check(): void;
}
