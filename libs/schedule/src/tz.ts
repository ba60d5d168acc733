/**
 * Wall-clock ↔ instant helpers for an IANA zone, over Intl data (intl-offset.ts).
 *
 * Vocabulary:
 * - *instant*: milliseconds since the Unix epoch (UTC).
 * - *wall time*: the local calendar date-time in the zone, encoded as the milliseconds the same
 *   fields would have in UTC (`Date.UTC(y, m-1, d, h, mi, s)`), so civil arithmetic is plain math.
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
import { offsetReader, type OffsetReader } from './intl-offset';

export type DstPolicy = 'quartz' | 'rfc5545' | 'lenient';

const DAY_MS = 86_400_000;
const BUCKET_MS = 900_000; // offsets are constant within 15-minute buckets except at transitions
const MAX_CACHE = 200_000;

const UTC_NAMES = new Set([
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
    return t1 < t2 ? t2 : t1;
  }
  if (v1) {
    return t1;
  }
  if (v2) {
    return t2;
  }
  return wall - before;
}

// ---- civil calendar math (proleptic Gregorian), after H. Hinnant's algorithms ----

/** Days since 1970-01-01 for a civil date (month 1-12; day may overflow, it is added linearly). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + 1 - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468 + (d - 1);
}

/** Civil date `[year, month 1-12, day 1-31]` of a day count since 1970-01-01. */
export function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** `HH:MM:` for every minute of a day, and `SS.` for every second of a minute. */
const MINUTE_TEXT: readonly string[] = Array.from(
  { length: 1440 },
  (_, m) => `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}:`,
);
const SECOND_TEXT: readonly string[] = Array.from({ length: 60 }, (_, s) => `${pad2(s)}.`);
/** `HH:MM:00.000Z`: most fire times are whole minutes, one concatenation each. */
const WHOLE_MINUTE_TEXT: readonly string[] = MINUTE_TEXT.map((m) => `${m}00.000Z`);
/** `YYYY-MM-DDT` by day number: a list of fire times mostly shares a few days. Bounded. */
const DATE_TEXT = new Map<number, string>();
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: the years `toIsoUtc` writes itself. */
const ISO_MIN_MS = -62_167_219_200_000;
const ISO_END_MS = 253_402_300_800_000;

function dateText(days: number): string {
  let text = DATE_TEXT.get(days);
  if (text === undefined) {
    const [y, m, d] = civilFromDays(days);
    text = `${y < 1000 ? String(y).padStart(4, '0') : y}-${pad2(m)}-${pad2(d)}T`;
    if (DATE_TEXT.size >= 4096) {
      DATE_TEXT.clear();
    }
    DATE_TEXT.set(days, text);
  }
  return text;
}

/**
 * `new Date(ms).toISOString()` (`2026-11-23T08:00:00.000Z`) from precomputed pieces (the date per
 * day, the time per minute and second), several times faster than the built-in: fire-time lists
 * format many instants. Years outside 0000-9999 use the built-in, whose extended-year format this
 * does not reproduce.
 */
export function toIsoUtc(ms: number): string {
  if (!(ms >= ISO_MIN_MS && ms < ISO_END_MS) || !Number.isInteger(ms)) {
    return new Date(ms).toISOString();
  }
  const days = Math.floor(ms / DAY_MS);
  const inDay = ms - days * DAY_MS;
  const minute = Math.floor(inDay / 60_000);
  const inMinute = inDay - minute * 60_000;
  if (inMinute === 0) {
    return dateText(days) + WHOLE_MINUTE_TEXT[minute];
  }
  const second = Math.floor(inMinute / 1000);
  const milli = inMinute - second * 1000;
  const millis = milli === 0 ? '000Z' : milli < 10 ? `00${milli}Z` : milli < 100 ? `0${milli}Z` : `${milli}Z`;
  return dateText(days) + MINUTE_TEXT[minute] + SECOND_TEXT[second] + millis;
}

/** True for Gregorian leap years. */
export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in month `m` (1-12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m - 1];
}

/** Day of week of a day count since 1970-01-01: 0 = Sunday … 6 = Saturday. */
export function weekdayOfDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** Wall-time ms (module doc encoding) from civil fields; fields may overflow (lenient arithmetic). */
export function wallFromFields(y: number, m: number, d: number, h = 0, mi = 0, s = 0): number {
  const ym = y * 12 + (m - 1);
  const yy = Math.floor(ym / 12);
  const mm = ym - yy * 12 + 1;
  return (daysFromCivil(yy, mm, 1) + (d - 1)) * DAY_MS + h * 3_600_000 + mi * 60_000 + s * 1000;
}
