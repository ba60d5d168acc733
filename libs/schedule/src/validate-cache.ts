/**
 * `ScheduleValidationCache`: `validateSchedule` with the compiled schedule and its upcoming fire
 * times kept per input, for callers that validate the same expressions over and over (the public
 * validate/preview endpoints behind a dashboard that previews as the user types, the same common
 * expressions from many clients).
 *
 * Exact, not approximate: only schedules whose fire times after an instant do not depend on the
 * reference they were compiled with are kept (`CompiledSchedule.referenceFree`), and only reused
 * for references at or after that one; a window holds *every* fire time in `(from, last]`, so the
 * fire times after any `after >= from` that the window covers are the ones the schedule would
 * compute. Anything else is computed afresh, with the caller's budget, exactly as
 * `validateSchedule` does.
 *
 * Bounded: at most `maxEntries` inputs (least recently used evicted; an input is kept from its
 * second sighting on), each window at most a few hundred instants. Not for workflow code: its
 * state lives in the process, outside any workflow history.
 */
import { budgetFor, compileSchedule } from './compile';
import type { Budget, CompiledSchedule, ScheduleInput, ScheduleKind } from './types';
import { checkFireTimes, fireTimesOf, validateSchedule, type ValidateOptions, type ValidationResult } from './validate';

/** Default number of inputs kept. */
export const DEFAULT_CACHE_ENTRIES = 1000;
/** Fire times computed ahead once an entry is hit again, so a hot entry rarely extends. */
const EXTEND_AHEAD = 64;
/** Consumed fire times dropped once this many lie before the requested instant. */
const TRIM_AFTER = 256;

/** The fire times of one reference-free schedule: all of them in `(from, last]`, ascending. */
class FireTimeWindow {
  private from: number;
  private fires: number[] = [];
  /** True when the schedule has no fire time after the last one held (or after `from` if none). */
  private complete = false;
  private reused = false;

  /** The reference the schedule was compiled with: it answers for instants from there on only. */
  readonly compiledAt: number;

  constructor(
    readonly kindDetected: ScheduleKind,
    readonly schedule: CompiledSchedule,
    from: number,
  ) {
    this.from = from;
    this.compiledAt = from;
  }

  markReused(): void {
    this.reused = true;
  }

  /** Up to `n` fire times strictly after `a` (epoch ms), as `schedule.next(after, n, budget)` would return. */
  take(after: number, n: number, budget: Budget): number[] {
    // The window holds one sequence of fire times; some `after`s continue it from a later instant
    // and a few are answered by no sequence at all (CompiledSchedule.equivalentAfter).
    const a = this.schedule.equivalentAfter ? this.schedule.equivalentAfter(after) : after;
    if (a === null) {
      return fireTimesOf(this.schedule, budget)(after, n);
    }
    const last = this.fires.length ? this.fires[this.fires.length - 1] : this.from;
    if (a < this.from || (a > last && !this.complete)) {
      // Before the window, or past its end (extending up to `a` could cost arbitrarily many fire times).
      this.from = a;
      this.fires = [];
      this.complete = false;
    }
    let i = upperBound(this.fires, a);
    if (i > TRIM_AFTER) {
      this.from = this.fires[i - 1];
      this.fires = this.fires.slice(i);
      i = 0;
    }
    const missing = n - (this.fires.length - i);
    if (missing > 0 && !this.complete) {
      // On a first use compute exactly what is asked (the uncached cost); once reused, run ahead.
      const want = this.reused ? Math.max(missing, EXTEND_AHEAD) : missing;
      const end = this.fires.length ? this.fires[this.fires.length - 1] : this.from;
      const more = fireTimesOf(this.schedule, budget)(end, want);
      for (const t of more) {
        this.fires.push(t);
      }
      this.complete = more.length < want;
    }
    return this.fires.slice(i, i + n);
  }
}

/** First index whose value is > `x` (the array is ascending). */
function upperBound(values: number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Everything in the input that can change the fire times, except the reference (see module doc). */
function cacheKey(input: ScheduleInput): string {
  // Quartz searches up to the reference's year + 100.
  return `${input.kind ?? 'auto'}\u0000${input.timezone ?? ''}\u0000${input.reference.getUTCFullYear()}\u0000${input.startsAt?.getTime() ?? ''}\u0000${input.endsAt?.getTime() ?? ''}\u0000${input.count ?? ''}\u0000${input.expr}`;
}

export class ScheduleValidationCache {
  private readonly entries = new Map<string, FireTimeWindow>();
  /**
   * Inputs seen once and not kept (admission on the second sighting), as 32-bit hashes of their
   * keys: a stream of one-off expressions then costs a number in a set, not a compiled schedule
   * and a window each (nor a key string) that live long enough to burden the garbage collector.
   * A hash collision only admits an input one sighting early.
   */
  private readonly seenOnce = new Set<number>();

  constructor(private readonly maxEntries = DEFAULT_CACHE_ENTRIES) {}

  /** True on the second sighting of `key` (among the last few thousand keys seen once). */
  private admit(key: string): boolean {
    const h = fnv1a(key);
    if (this.seenOnce.delete(h)) {
      return true;
    }
    if (this.seenOnce.size >= 4 * this.maxEntries) {
      this.seenOnce.clear();
    }
    this.seenOnce.add(h);
    return false;
  }

  /** Number of inputs currently kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Same contract and results as `validateSchedule(input, opts)`. */
  validate(input: ScheduleInput, opts: ValidateOptions = {}): ValidationResult {
    const budget = opts.budget ?? budgetFor(opts);
    if (!(input.reference instanceof Date) || Number.isNaN(input.reference.getTime())) {
      return validateSchedule(input, { ...opts, budget }); // compile reports the bad reference
    }
    const key = cacheKey(input);
    let window = this.entries.get(key);
    if (window && input.reference.getTime() < window.compiledAt) {
      // A schedule anchored at its reference (an RRULE without DTSTART) has no fire times before it.
      this.entries.delete(key);
      window = undefined;
    }
    if (window) {
      this.entries.delete(key); // re-insert: Map order is the recency order
      window.markReused();
    } else {
      const compiled = compileSchedule(input, { ...opts, budget });
      if (!compiled.ok) {
        return { valid: false, kindDetected: compiled.kindDetected, errors: compiled.errors };
      }
      const s = compiled.schedule;
      if (!s.referenceFree || !this.admit(key)) {
        return checkFireTimes(input, compiled.kindDetected, s, opts, fireTimesOf(s, budget));
      }
      window = new FireTimeWindow(compiled.kindDetected, s, input.reference.getTime());
      if (this.entries.size >= this.maxEntries) {
        this.entries.delete(this.entries.keys().next().value as string);
      }
    }
    this.entries.set(key, window);
    const w = window;
    return checkFireTimes(input, w.kindDetected, w.schedule, opts, (after, n) => w.take(after, n, budget));
  }
}
