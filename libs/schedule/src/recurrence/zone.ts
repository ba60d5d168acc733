/**
 * Fast UTC-offset lookups for an IANA zone, and the RFC 5545 wall-clock → instant policy.
 *
 * An Intl offset lookup costs ~1.5 µs (intl-offset.ts), too slow for expanding hundreds of
 * occurrences. We sample each zone once per 52-week bucket (weekly
 * samples, then a binary search to the second for every change) and answer later lookups from the
 * resulting transition table. Assumption: at most one offset change per sampled week, true of the
 * tz database since 1900 except a handful of pre-1950 oddities.
 *
 * Vocabulary: a *floating* time is a wall-clock reading encoded as `Date.UTC(y, m - 1, d, h, mi, s)`
 * (ms); an *instant* is epoch ms. `offset` is in minutes east of UTC (instant = floating - offset).
 */
import { IANAZone } from 'luxon';
import { offsetReader, type OffsetReader } from '../intl-offset';

const WEEK = 7 * 86_400_000;
const BUCKET = 52 * WEEK;
const DAY = 86_400_000;

interface Segment {
  /** First instant (inclusive) where `offset` applies. */
  from: number;
  offset: number;
}

export class ZoneOffsets {
  private readonly buckets = new Map<number, Segment[]>();
  private readonly fixed: number | null;
  private readonly zone: OffsetReader | null;

  private constructor(readonly name: string) {
    const upper = name.toUpperCase();
    if (upper === 'UTC' || upper === 'ETC/UTC' || upper === 'GMT' || upper === 'ETC/GMT' || upper === 'Z') {
      this.fixed = 0;
      this.zone = null;
    } else {
      if (!IANAZone.isValidZone(name)) {
        throw new RangeError(`unknown time zone: ${name}`);
      }
      this.zone = offsetReader(name);
      this.fixed = null;
    }
  }

  private static readonly cache = new Map<string, ZoneOffsets>();

  /** Shared per-zone instance (the transition table is built lazily and kept). */
  static of(name: string): ZoneOffsets {
    let z = ZoneOffsets.cache.get(name);
    if (!z) {
      z = new ZoneOffsets(name);
      if (ZoneOffsets.cache.size > 512) {
        ZoneOffsets.cache.clear();
      }
      ZoneOffsets.cache.set(name, z);
    }
    return z;
  }

  /** True when `name` is a zone luxon/Intl know. */
  static isValid(name: string): boolean {
    try {
      ZoneOffsets.of(name);
      return true;
    } catch {
      return false;
    }
  }

  /** Offset in minutes at `instant`. */
  offset(instant: number): number {
    if (this.fixed !== null) {
      return this.fixed;
    }
    const b = Math.floor(instant / BUCKET);
    let segs = this.buckets.get(b);
    if (!segs) {
      segs = this.build(b);
      this.buckets.set(b, segs);
    }
    let o = segs[0]!.offset;
    for (let i = 1; i < segs.length; i++) {
      if (segs[i]!.from > instant) {
        break;
      }
      o = segs[i]!.offset;
    }
    return o;
  }

  private raw(ts: number): number {
    return this.zone!(ts);
  }

  private build(b: number): Segment[] {
    const start = b * BUCKET;
    const segs: Segment[] = [{ from: start, offset: this.raw(start) }];
    let prevT = start;
    let prevO = segs[0]!.offset;
    for (let i = 1; i <= 52; i++) {
      const t = start + i * WEEK;
      const o = this.raw(t);
      if (o !== prevO) {
        // binary search for the first second with the new offset
        let lo = prevT;
        let hi = t;
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (this.raw(mid) === prevO) {
            lo = mid;
          } else {
            hi = mid;
          }
        }
        if (i < 52 || hi < start + BUCKET) {
          segs.push({ from: hi, offset: o });
        }
      }
      prevT = t;
      prevO = o;
    }
    return segs.filter((s) => s.from < start + BUCKET || s === segs[0]);
  }

  /** Floating wall time of `instant`. */
  toFloating(instant: number): number {
    return instant + this.offset(instant) * 60_000;
  }

  /**
   * Instant of the wall-clock time `floating`, RFC 5545 policy: a time inside a gap (spring
   * forward) is read with the offset in force before the gap, i.e. moved forward by the gap's
   * length (02:30 in a 02:00→03:00 gap fires at 03:30); a repeated time (fall back) resolves to
   * its first instance (the earlier instant).
   */
  toInstant(floating: number): number {
    if (this.fixed !== null) {
      return floating - this.fixed * 60_000;
    }
    const oPre = this.offset(floating - DAY);
    const oPost = this.offset(floating + DAY);
    if (oPre === oPost) {
      const t = floating - oPre * 60_000;
      if (this.offset(t) === oPre) {
        return t;
      }
    }
    let best: number | null = null;
    for (const o of oPre === oPost ? [oPre] : [oPre, oPost]) {
      const t = floating - o * 60_000;
      if (this.offset(t) === o && (best === null || t < best)) {
        best = t;
      }
    }
    if (best !== null) {
      return best;
    }
    return floating - oPre * 60_000;
  }

  /** Largest offset (minutes) in force within a day and a half around `instant` (for ordering bounds). */
  maxOffsetNear(instant: number): number {
    return Math.max(this.offset(instant - 14 * 3_600_000), this.offset(instant), this.offset(instant + 38 * 3_600_000));
  }
}
