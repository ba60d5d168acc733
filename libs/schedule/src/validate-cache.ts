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
import { partitionPoint } from './partition-point';
import { budgetFor, compileSchedule } from './compile';
import type { Budget, CompiledSchedule, RequestedScheduleKind, ScheduleInput, ScheduleKind } from './types';
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
    readonly key: CacheKey,
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
  return partitionPoint(values.length, (i) => values[i]! <= x);
}

/** Everything in the input that can change the fire times, except the reference (see module doc). Exported for tests. */
export class CacheKey {
  readonly kind: RequestedScheduleKind;
  readonly timezone: string;
  /** Quartz searches up to the reference's year + 100. */
  readonly year: number;
  readonly startsAt: number | null;
  readonly endsAt: number | null;
  readonly count: number | null;
  readonly expr: string;
  /** FNV-1a over the parts, 30 bits (a small integer for the maps): equal keys, equal hashes. */
  readonly hash: number;

  constructor(input: ScheduleInput) {
    this.kind = input.kind ?? 'auto';
    this.timezone = input.timezone ?? '';
    this.year = input.reference.getUTCFullYear();
    this.startsAt = input.startsAt?.getTime() ?? null;
    this.endsAt = input.endsAt?.getTime() ?? null;
    this.count = input.count ?? null;
    this.expr = input.expr;
    let h = mixString(0x811c9dc5, this.kind);
    h = mixString(h, this.timezone);
    h = mixNumber(h, this.year);
    h = mixNumber(h, this.startsAt ?? -1);
    h = mixNumber(h, this.endsAt ?? -1);
    h = mixNumber(h, this.count ?? -1);
    this.hash = mixString(h, this.expr) & 0x3fffffff;
  }

  equals(other: CacheKey): boolean {
    return (
      this.expr === other.expr &&
      this.timezone === other.timezone &&
      this.kind === other.kind &&
      this.year === other.year &&
      this.startsAt === other.startsAt &&
      this.endsAt === other.endsAt &&
      this.count === other.count
    );
  }
}

/** FNV-1a steps over a string's UTF-16 code units (and a separator, so parts cannot run together). */
function mixString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  return Math.imul(h ^ 0xffff, 0x01000193);
}

/** FNV-1a steps over a number's low and high 32 bits. */
function mixNumber(h: number, x: number): number {
  h = Math.imul(h ^ (x | 0), 0x01000193);
  return Math.imul(h ^ (Math.floor(x / 4_294_967_296) | 0), 0x01000193);
}

export class ScheduleValidationCache {
  /** By key hash; a window holds its key, so a hash collision is a miss (and the newer input replaces it). */
  private readonly entries = new Map<number, FireTimeWindow>();
  /**
   * Inputs seen once and not kept (admission on the second sighting), as hashes of their keys: a
   * stream of one-off expressions then costs a number in a set, not a compiled schedule and a
   * window each that live long enough to burden the garbage collector. A hash collision only
   * admits an input one sighting early.
   */
  private readonly seenOnce = new Set<number>();

  constructor(private readonly maxEntries = DEFAULT_CACHE_ENTRIES) {}

  /** True on the second sighting of a key hash (among the last few thousand seen once). */
  private admit(h: number): boolean {
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
    const key = new CacheKey(input);
    let window = this.entries.get(key.hash);
    if (window && !window.key.equals(key)) {
      window = undefined; // another input with the same hash
    } else if (window && input.reference.getTime() < window.compiledAt) {
      // A schedule anchored at its reference (an RRULE without DTSTART) has no fire times before it.
      this.entries.delete(key.hash);
      window = undefined;
    }
    if (window) {
      this.entries.delete(key.hash); // re-insert: Map order is the recency order
      window.markReused();
    } else {
      const compiled = compileSchedule(input, { ...opts, budget });
      if (!compiled.ok) {
        return { valid: false, kindDetected: compiled.kindDetected, errors: compiled.errors };
      }
      const s = compiled.schedule;
      if (!s.referenceFree || !this.admit(key.hash)) {
        return checkFireTimes(input, compiled.kindDetected, s, opts, fireTimesOf(s, budget));
      }
      window = new FireTimeWindow(key, compiled.kindDetected, s, input.reference.getTime());
      if (this.entries.size >= this.maxEntries && !this.entries.has(key.hash)) {
        this.entries.delete(this.entries.keys().next().value as number);
      }
    }
    this.entries.set(key.hash, window);
    const w = window;
    return checkFireTimes(input, w.kindDetected, w.schedule, opts, (after, n) => w.take(after, n, budget));
  }
}
