/**
 * `validateSchedule`: compile, then reject schedules that never fire, fire only beyond a sane
 * horizon, or fire more often than the minimum interval (sampled over 100 successive gaps).
 */
import { BUDGET_EXCEEDED_MESSAGE, isBudgetError } from './budget';
import { budgetFor, compileSchedule, type CompileOptions } from './compile';
import { wholeExpressionError } from './errors';
import { toIsoUtc } from './civil';
import type { Budget, CompiledSchedule, ScheduleError, ScheduleInput, ScheduleKind } from './types';

/** Default horizon: a schedule whose first fire time is further than this is `never_fires`. */
export const DEFAULT_HORIZON_MS = 10 * 366 * 86_400_000;
/** Number of successive gaps sampled for the minimum-interval check (spec). */
export const SAMPLED_GAPS = 100;

export interface ValidateOptions extends CompileOptions {
  /** Minimum allowed gap between successive fire times, in ms (`limits.min_interval`); 0 = off. */
  minIntervalMs?: number;
  /** Horizon in ms after `input.reference` (default ~10 years; none for Quartz, which stops at its own year limit). */
  horizon?: number;
  /**
   * When valid, `sample` holds at least this many fire times after the reference (fewer only if
   * the series ends): a preview's `count`, read from the same source as the checks.
   */
  sampleCount?: number;
}

export interface ValidationResult {
  valid: boolean;
  kindDetected: ScheduleKind | null;
  /** Present when valid. */
  canonical?: string;
  description?: string;
  errors: ScheduleError[];
  /** The compiled schedule when valid. */
  schedule?: CompiledSchedule;
  /**
   * The fire times sampled after the reference while validating, as epoch milliseconds (ascending;
   * the first 101 when the minimum gap was checked), so a preview need not compute them again.
   */
  sample?: number[];
}

function fmtDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = ms;
  let out = '';
  for (const [u, v] of units) {
    if (rest >= v) {
      out += `${Math.floor(rest / v)}${u}`;
      rest %= v;
    }
  }
  return out || '0s';
}

/**
 * Validates a schedule for the API (`POST /schedules/validate`, job create/update).
 *
 * - Reference instant: `input.reference` (never a clock read); fire times are sampled after it.
 * - `never_fires`: no fire time after the reference, or the first one is later than
 *   `reference + horizon` (the error message gives the first date in UTC). By default Quartz has
 *   no horizon but its own year limit (reference year + 100, as Quartz's MAX_YEAR).
 * - `min_interval`: among the first 100 gaps (101 fire times) one is shorter than
 *   `minIntervalMs`. One-off schedules are exempt.
 * - `budget_exceeded`: compile plus sampling exceeded the budget (`opts.now` + `budgetMs`, default
 *   100 ms; without `now` a deterministic step budget).
 * Never throws for bad input.
 */
export function validateSchedule(input: ScheduleInput, opts: ValidateOptions = {}): ValidationResult {
  const budget = opts.budget ?? budgetFor(opts);
  const compiled = compileSchedule(input, { ...opts, budget });
  if (!compiled.ok) {
    return { valid: false, kindDetected: compiled.kindDetected, errors: compiled.errors };
  }
  const s = compiled.schedule;
  return checkFireTimes(input, compiled.kindDetected, s, opts, fireTimesOf(s, budget));
}

/**
 * Fire times strictly after `after`, ascending, at most `n`, all as epoch milliseconds (a
 * schedule's `next` or a cache of it).
 */
export type FireTimeSource = (after: number, n: number) => number[];

/** A schedule's own fire times as a source, computed under `budget`. */
export function fireTimesOf(s: CompiledSchedule, budget: Budget): FireTimeSource {
  return s.nextTimes
    ? (after, n) => (s.nextTimes as NonNullable<CompiledSchedule['nextTimes']>)(after, n, budget)
    : (after, n) => s.next(new Date(after), n, budget).map((d) => d.getTime());
}

/**
 * The checks of `validateSchedule` after a successful compile (never fires, horizon, minimum
 * gap), reading fire times from `fires`; budget errors become `budget_exceeded`.
 */
export function checkFireTimes(
  input: ScheduleInput,
  kindDetected: ScheduleKind,
  s: CompiledSchedule,
  opts: ValidateOptions,
  fires: FireTimeSource,
): ValidationResult {
  const expr = input.expr;
  const errors: ScheduleError[] = [];
  let sample: number[] = [];
  try {
    const ref = input.reference.getTime();
    // Quartz searches up to its own year limit (MAX_YEAR) and finds what lies decades ahead; the
    // default horizon applies to the other kinds only.
    const horizon = opts.horizon ?? (s.kind === 'quartz' ? Infinity : DEFAULT_HORIZON_MS);
    const wanted = opts.sampleCount ?? 0;
    // a preview needs `wanted` fire times anyway: when the gap check will not sample, take them at once
    const checkGap = !s.oneOff && (opts.minIntervalMs ?? 0) > (s.minGapLowerBoundMs ?? 0);
    const first = fires(ref, checkGap ? 1 : Math.max(1, wanted));
    sample = first;
    if (first.length === 0) {
      errors.push(
        wholeExpressionError(expr, 'never_fires', 'this schedule never fires after the reference time', null),
      );
    } else if (first[0] - ref > horizon) {
      errors.push(
        wholeExpressionError(
          expr,
          'never_fires',
          `this schedule first fires on ${toIsoUtc(first[0]).slice(0, 10)}, more than ${Math.round(horizon / (365.25 * 86_400_000))} years away`,
          null,
        ),
      );
    } else if (checkGap) {
      const sampled = [first[0], ...fires(first[0], SAMPLED_GAPS)];
      sample = sampled;
      for (let i = 1; i < sampled.length; i++) {
        const gap = sampled[i] - sampled[i - 1];
        if (gap < (opts.minIntervalMs as number)) {
          errors.push(
            wholeExpressionError(
              expr,
              'min_interval',
              `this schedule fires ${fmtDuration(gap)} apart (${toIsoUtc(sampled[i - 1])} and ${toIsoUtc(sampled[i])}); the minimum interval is ${fmtDuration(opts.minIntervalMs as number)}`,
              null,
            ),
          );
          break;
        }
      }
    }
    if (errors.length === 0 && sample.length < wanted) {
      // continue from the last fire time sampled (successive fire times chain), not from the start
      sample = sample.length
        ? [...sample, ...fires(sample[sample.length - 1], wanted - sample.length)]
        : fires(ref, wanted);
    }
  } catch (e) {
    if (!isBudgetError(e)) {
      throw e;
    }
    return {
      valid: false,
      kindDetected,
      errors: [wholeExpressionError(expr, 'budget_exceeded', BUDGET_EXCEEDED_MESSAGE)],
    };
  }
  if (errors.length) {
    return { valid: false, kindDetected, errors };
  }
  return {
    valid: true,
    kindDetected,
    canonical: s.canonical,
    description: s.description,
    errors,
    schedule: s,
    sample,
  };
}
