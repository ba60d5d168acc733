/**
 * The raw UTC offset of an IANA zone at an instant, read from Intl. The offset cache of every
 * grammar (`ZoneOffsets` in tz.ts) sits on top of this; a cold lookup is
 * what a schedule whose fire times lie decades ahead pays for every month it searches.
 *
 * `Intl.DateTimeFormat#format` with `timeZoneName: 'longOffset'` ("…, GMT+05:45") costs ~1.5 µs,
 * luxon's `IANAZone.offset` (`formatToParts` of every field, then arithmetic) ~15 µs; both read the
 * same ICU data. luxon stays as the fallback for a runtime whose Intl lacks `longOffset`.
 */
import { IANAZone } from 'luxon';

/** Offset in minutes east of UTC at an instant (ms since epoch). */
export type OffsetReader = (instant: number) => number;

const LONG_OFFSET = /GMT(?:([+\u2212-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?)?$/;

const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;

/** Minutes east of UTC in a `longOffset` rendering, or null when it is not one. */
export function parseLongOffset(s: string): number | null {
  // fast path for the usual shapes "…GMT" and "…GMT+05:45"
  const n = s.length;
  if (n >= 3 && s.endsWith('GMT')) {
    return 0;
  }
  if (n >= 9 && s.charCodeAt(n - 3) === 58 /* : */ && s.startsWith('GMT', n - 9)) {
    const sign = s.charCodeAt(n - 6);
    const minutes = (digit(s, n - 5) * 10 + digit(s, n - 4)) * 60 + digit(s, n - 2) * 10 + digit(s, n - 1);
    if (sign === 43 /* + */ && minutes >= 0) {
      return minutes;
    }
    if ((sign === 45 /* - */ || sign === 0x2212) && minutes >= 0) {
      return -minutes;
    }
  }
  const m = LONG_OFFSET.exec(s);
  if (m === null) {
    return null;
  }
  if (m[1] === undefined) {
    return 0;
  }
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0) + Number(m[4] ?? 0) / 60;
  return m[1] === '+' ? minutes : -minutes;
}

/** An offset reader for a valid IANA zone name. */
export function offsetReader(name: string): OffsetReader {
  let dtf: Intl.DateTimeFormat | null = null;
  try {
    dtf = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  } catch {
    dtf = null; // no longOffset support
  }
  if (dtf !== null && parseLongOffset(dtf.format(0)) !== null) {
    const f = dtf;
    const zone = IANAZone.create(name);
    return (instant: number): number => {
      if (!Number.isFinite(instant) || Math.abs(instant) > 8.64e15) {
        return zone.offset(instant);
      }
      const o = parseLongOffset(f.format(instant));
      return o === null ? zone.offset(instant) : o;
    };
  }
  const zone = IANAZone.create(name);
  return (instant: number): number => zone.offset(instant);
}
