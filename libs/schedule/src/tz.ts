/**
 * Wall-clock ↔ instant helpers for an IANA zone, over Intl data (intl-offset.ts): the one set
 * every grammar uses (calendar arithmetic on wall times is civil.ts's).
 *
 * Vocabulary:
 * - *instant*: milliseconds since the Unix epoch (UTC).
 * - *wall time* (RFC 5545's *floating* time): the local calendar date-time in the zone, encoded as
 *   the milliseconds the same fields would have in UTC (`Date.UTC(y, m-1, d, h, mi, s)`; civil.ts).
 *
 * DST policies for a wall time that does not map to exactly one instant:
 * - `quartz` (Quartz 2.5 CronExpression, decisions.md): a wall time inside a gap is skipped
 *   (result `null`); a repeated wall time resolves to its SECOND instance (the offset after the
 *   transition, i.e. standard time), which is what `java.util.GregorianCalendar` does.
 * - `rfc5545` (natural, RRULE and 5-field cron): a gap time shifts forward by the gap length
 *   (02:30 in a 02:00→03:00 gap becomes 03:30); a repeated time resolves to its FIRST instance.
 * - `lenient` (internal, used by the Quartz port to emulate `GregorianCalendar` field arithmetic):
 *   gap → shift forward by the gap length, overlap → second instance.
 *
 * Assumes at most one offset transition within ±1 day of a wall time (true for every zone since
 * 1970 except a handful of historical double changes).
 * No clock reads, no Node builtins: safe inside the Temporal workflow sandbox.
 */
import { IANAZone } from 'luxon';
import { DAY_MS } from './civil';
import { offsetReader, type OffsetReader } from './intl-offset';

export type DstPolicy = 'quartz' | 'rfc5545' | 'lenient';

const BUCKET_MS = 900_000; // offsets are constant within 15-minute buckets except at transitions
const MAX_CACHE = 200_000;

const UTC_NAMES = new Set([
  'z',
  'utc',
  'etc/utc',
  'etc/uct',
  'uct',
  'gmt',
  'etc/gmt',
  'etc/gmt+0',
  'etc/gmt-0',
  'etc/gmt0',
  'gmt0',
  'gmt+0',
  'gmt-0',
  'etc/universal',
  'universal',
  'etc/zulu',
  'zulu',
  'etc/greenwich',
  'greenwich',
]);

/**
 * True when `name` is an IANA time zone name known to the runtime's Intl data (case-insensitive,
 * e.g. `Europe/Berlin`, `UTC`). Fixed offsets like `+02:00` and abbreviations like `EST5EDT` that
 * Intl happens to accept are allowed only if Intl accepts them; `Mars/Base` is not.
 */
export function isValidTimeZone(name: string): boolean {
  if (typeof name !== 'string' || name.length === 0 || name.length > 64) {
    return false;
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) {
    return false;
  }
  // luxon builds a new Intl.DateTimeFormat per check (~200 µs); zone validity never changes at run time.
  let valid = ZONE_VALIDITY.get(name);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(name);
    if (ZONE_VALIDITY.size < MAX_CACHED_ZONES) {
      ZONE_VALIDITY.set(name, valid);
    }
  }
  return valid;
}

/**
 * True when `zoneOffsets(name)` reads real offsets: a UTC alias (`Z` included) or any zone
 * luxon/Intl know, fixed offsets such as `+02:00` too. Looser than `isValidTimeZone` (a
 * schedule's `timezone`); an RRULE's `DTSTART;TZID=` is checked with this.
 */
export function hasZoneOffsets(name: string): boolean {
  return UTC_NAMES.has(name.toLowerCase()) || IANAZone.isValidZone(name);
}

const MAX_CACHED_ZONES = 2_000;
const ZONE_VALIDITY = new Map<string, boolean>();

/** Offset lookup for one zone with a bucket cache (an Intl lookup costs ~1.5 µs, see intl-offset.ts). */
export class ZoneOffsets {
  readonly name: string;
  /** True for UTC aliases: offset is always 0 and every helper takes a fast path. */
  readonly isUtc: boolean;
  private readonly zone: OffsetReader | null;
  private readonly cache = new Map<number, number>();

  constructor(name: string) {
    this.name = name;
    this.isUtc = UTC_NAMES.has(name.toLowerCase());
    this.zone = this.isUtc ? null : offsetReader(name);
  }

  /** UTC offset in milliseconds at `instant` (ms since epoch). */
  offset(instant: number): number {
    if (this.zone === null) {
      return 0;
    }
    // Level 1: whole UTC days with a constant offset; level 2: 15-minute buckets inside days that
    // contain a transition; level 3: a direct lookup for the bucket holding the transition.
    const day = Math.floor(instant / DAY_MS);
    let e = this.cache.get(day);
    if (e === undefined) {
      e = this.span(day * DAY_MS, DAY_MS);
      this.put(day, e);
    }
    if (!Number.isNaN(e)) {
      return e;
    }
    const k = Math.floor(instant / BUCKET_MS);
    const key = -1 - k; // negative keys for buckets (day keys are >= 0 after 1970; negative days are rare)
    let b = this.fine.get(key);
    if (b === undefined) {
      b = this.span(k * BUCKET_MS, BUCKET_MS);
      if (this.fine.size >= MAX_CACHE) {
        this.fine.clear();
      }
      this.fine.set(key, b);
    }
    return Number.isNaN(b) ? Math.round((this.zone as OffsetReader)(instant) * 60_000) : b;
  }

  private readonly fine = new Map<number, number>();
  private readonly wallDays = new Map<number, number>();

  /**
   * The offset of every wall time of wall-day `floor(wall / DAY)` when one offset holds through the
   * UTC days around it (its wall times then map to exactly one instant each), else NaN.
   */
  uniformWallDayOffset(wall: number): number {
    const day = Math.floor(wall / DAY_MS);
    let o = this.wallDays.get(day);
    if (o === undefined) {
      // instants of the day's wall times lie within a day of it (|offset| < 24 h)
      const a = this.offset((day - 1) * DAY_MS);
      const b = this.offset(day * DAY_MS);
      const c = this.offset((day + 1) * DAY_MS);
      const uniform =
        a === b &&
        b === c &&
        !Number.isNaN(this.cache.get(day - 1) ?? NaN) &&
        !Number.isNaN(this.cache.get(day) ?? NaN) &&
        !Number.isNaN(this.cache.get(day + 1) ?? NaN);
      o = uniform ? a : NaN;
      if (this.wallDays.size >= MAX_CACHE) {
        this.wallDays.clear();
      }
      this.wallDays.set(day, o);
    }
    return o;
  }

  private span(start: number, len: number): number {
    const z = this.zone as OffsetReader;
    const a = z(start);
    const b = z(start + len - 1);
    return a === b ? Math.round(a * 60_000) : NaN;
  }

  private put(k: number, v: number): void {
    if (this.cache.size >= MAX_CACHE) {
      this.cache.clear();
    }
    this.cache.set(k, v);
  }
}

const zones = new Map<string, ZoneOffsets>();

/** Shared cached `ZoneOffsets` for a (valid) zone name. */
export function zoneOffsets(name: string): ZoneOffsets {
  let z = zones.get(name);
  if (z === undefined) {
    z = new ZoneOffsets(name);
    if (zones.size > 1000) {
      zones.clear();
    }
    zones.set(name, z);
  }
  return z;
}

/** Wall time (see module doc) of `instant` in `zone`. */
export function instantToWall(zone: ZoneOffsets, instant: number): number {
  return instant + zone.offset(instant);
}

/** Largest offset (ms) in force within a day and a half around `instant` (for ordering bounds). */
export function maxOffsetNear(zone: ZoneOffsets, instant: number): number {
  return Math.max(zone.offset(instant - 14 * 3_600_000), zone.offset(instant), zone.offset(instant + 38 * 3_600_000));
}

/** How a wall time maps to instants. `instants` are ascending; a gap has none. */
export interface WallResolution {
  kind: 'unique' | 'gap' | 'overlap';
  instants: number[];
  /** For a gap: the instant obtained by shifting forward by the gap length. */
  shifted?: number;
}

/** Classifies a wall time in `zone`: unique, inside a DST gap, or repeated (overlap). */
export function classifyWall(zone: ZoneOffsets, wall: number): WallResolution {
  if (zone.isUtc) {
    return { kind: 'unique', instants: [wall] };
  }
  const before = zone.offset(wall - DAY_MS);
  const after = zone.offset(wall + DAY_MS);
  if (before === after) {
    const o = zone.offset(wall - before);
    if (o === before) {
      return { kind: 'unique', instants: [wall - before] };
    }
    // A transition in between that reverts within the window: fall back to direct probing.
    const o2 = zone.offset(wall - o);
    return { kind: 'unique', instants: [wall - o2] };
  }
  const t1 = wall - before;
  const t2 = wall - after;
  const v1 = zone.offset(t1) === before;
  const v2 = zone.offset(t2) === after;
  if (v1 && v2 && t1 !== t2) {
    return { kind: 'overlap', instants: t1 < t2 ? [t1, t2] : [t2, t1] };
  }
  if (v1) {
    return { kind: 'unique', instants: [t1] };
  }
  if (v2) {
    return { kind: 'unique', instants: [t2] };
  }
  // gap: interpret with the offset in force before the transition => shifted forward by the gap
  return { kind: 'gap', instants: [], shifted: wall - before };
}

/**
 * Instant for a wall time under a DST policy (see module doc). Returns `null` only for the
 * `quartz` policy in a gap (that local time does not happen that day).
 * @param wall wall time in ms (module doc encoding)
 */
export function wallToInstant(zone: ZoneOffsets, wall: number, policy: DstPolicy): number | null {
  if (zone.isUtc) {
    return wall;
  }
  const r = classifyWall(zone, wall);
  switch (r.kind) {
    case 'unique':
      return r.instants[0];
    case 'overlap':
      return policy === 'rfc5545' ? r.instants[0] : r.instants[1];
    case 'gap':
      return policy === 'quartz' ? null : (r.shifted as number);
  }
}

/**
 * `wallToInstant(zone, wall, 'lenient')` without allocating (the Quartz port resolves a wall time
 * for nearly every field it reads): gap → shifted forward by the gap, overlap → second instance.
 */
export function lenientWallToInstant(zone: ZoneOffsets, wall: number): number {
  return resolveWall(zone, wall, false);
}

/**
 * `wallToInstant(zone, wall, 'rfc5545')` without allocating (RRULE and natural expansion resolve
 * every occurrence): gap → shifted forward by the gap, overlap → first instance.
 */
export function rfc5545WallToInstant(zone: ZoneOffsets, wall: number): number {
  return resolveWall(zone, wall, true);
}

/** `classifyWall` then the policy, without allocating: gap → shifted; overlap → first or second instance. */
function resolveWall(zone: ZoneOffsets, wall: number, firstOfOverlap: boolean): number {
  if (zone.isUtc) {
    return wall;
  }
  const uniform = zone.uniformWallDayOffset(wall);
  if (!Number.isNaN(uniform)) {
    return wall - uniform;
  }
  const before = zone.offset(wall - DAY_MS);
  const after = zone.offset(wall + DAY_MS);
  if (before === after) {
    const o = zone.offset(wall - before);
    return o === before ? wall - before : wall - zone.offset(wall - o);
  }
  const t1 = wall - before;
  const t2 = wall - after;
  const v1 = zone.offset(t1) === before;
  const v2 = zone.offset(t2) === after;
  if (v1 && v2 && t1 !== t2) {
    return firstOfOverlap ? Math.min(t1, t2) : Math.max(t1, t2);
  }
  if (v1) {
    return t1;
  }
  if (v2) {
    return t2;
  }
  return wall - before;
}
