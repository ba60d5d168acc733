/** Times of day: `9:30`, `8am and 8pm`, `noon`, `at minute 30`, and `between 9am and 5pm` windows. */
import { pad2, TIME_RANGE, type Cursor } from './cursor';
import type { Tok } from './lexer';
import type { Span } from './spec';
import { ORDINAL_SUFFIXES, UNITS } from './vocab';

/**
 * `at minute 30`, `at 30 minutes past the hour`, `at 15 past`: the minute of every hour (cron's
 * `30 * * * *`), a phase of the hourly steps (`every 2 hours at 15 minutes past` = 00:15, 02:15 …).
 */
export function minuteOfHour(cur: Cursor, start: Tok): boolean {
  let n: Tok | undefined;
  let len: number;
  if (cur.low() === 'minute' && cur.tok(1)?.kind === 'num') {
    n = cur.tok(1);
    len = 2;
  } else if (cur.tok()?.kind === 'num' && ['minute', 'minutes', 'mins', 'min', 'past'].includes(cur.low(1))) {
    const unit = cur.low(1) !== 'past';
    if (unit && cur.low(2) !== 'past') {
      return false;
    }
    n = cur.tok();
    len = unit ? 3 : 2;
  } else {
    return false;
  }
  cur.i += len;
  if (cur.low() === 'the' && cur.low(1) === 'hour') {
    cur.i += 2;
  } else {
    cur.accept('hour', 'each', 'every');
    cur.accept('hour');
  }
  const span = cur.spanFrom(start);
  if (n!.n! > 59) {
    cur.err(n!, n!, 'out_of_range', `minute ${n!.n} is out of range: minutes go from 0 to 59`);
    return true;
  }
  if (!cur.dup(cur.spec.phase, span, 'the starting time')) {
    cur.spec.phase = { sec: n!.n! * 60, span, minuteOfHour: true };
  }
  return true;
}

export function timeList(cur: Cursor, afterAt = false): void {
  for (;;) {
    const tm = timeOfDay(cur, afterAt);
    if (tm && tm.sec !== null) {
      if (cur.spec.times.some((x) => x.sec === tm.sec)) {
        cur.err(tm.span, tm.span, 'conflict', 'this time is listed twice');
      } else {
        cur.spec.times.push({ sec: tm.sec, span: tm.span });
      }
    }
    if (cur.acceptSeparator((c, k) => isTimeStartAt(c, k, afterAt))) {
      continue;
    }
    break;
  }
}

export function isTimeStart(cur: Cursor, lenient = false): boolean {
  return isTimeStartAt(cur, 0, lenient);
}

/** Is token k the start of a time? Bare numbers count only after `at` (`lenient`) or with am/pm/o'clock. */
export function isTimeStartAt(cur: Cursor, k: number, lenient: boolean): boolean {
  const t = cur.tok(k);
  if (!t) {
    return false;
  }
  if (t.kind === 'time') {
    return true;
  }
  if (t.kind === 'word') {
    return ['noon', 'midday', 'midnight'].includes(t.low);
  }
  if (t.kind === 'num') {
    const next = cur.low(k + 1);
    if (['am', 'pm', "o'clock", 'oclock'].includes(next)) {
      return true;
    }
    return lenient && !UNITS[next] && !ORDINAL_SUFFIXES.has(next) && next !== 'times' && next !== 'time';
  }
  return false;
}

/** One time of day; `sec` null when it was out of range (an error was reported). */
export function timeOfDay(cur: Cursor, lenient = false): { sec: number | null; span: Span } | null {
  const t = cur.tok();
  if (!t || !isTimeStart(cur, lenient)) {
    return null;
  }
  cur.i++;
  if (t.kind === 'word') {
    return { sec: t.low === 'midnight' ? 0 : 12 * 3600, span: { start: t.start, end: t.end } };
  }
  let h: number;
  let mi = 0;
  let s = 0;
  if (t.kind === 'time') {
    h = t.h!;
    mi = t.mi!;
    s = t.s!;
  } else {
    h = t.n!;
  }
  let mer: string | null = null;
  if (cur.is('am', 'pm')) {
    mer = cur.low();
    cur.i++;
  } else if (cur.is("o'clock", 'oclock')) {
    cur.i++;
  }
  const span = cur.spanFrom(t);
  let bad = false;
  if (mer) {
    if (h < 1 || h > 12) {
      cur.err(
        span,
        span,
        'out_of_range',
        `with ${mer} the hour goes from 1 to 12; ${TIME_RANGE}`,
        h <= 23 ? pad2(h) + ':' + pad2(mi) : null,
      );
      return { sec: null, span };
    }
    h = (h % 12) + (mer === 'pm' ? 12 : 0);
  }
  if (h > 23 || (h === 24 && (mi > 0 || s > 0))) {
    cur.err(
      span,
      span,
      'out_of_range',
      `hour ${h} is out of range: ${TIME_RANGE}`,
      h === 24 && mi === 0 ? 'midnight' : null,
    );
    bad = true;
  }
  if (mi > 59) {
    cur.err(span, span, 'out_of_range', `minute ${mi} is out of range: ${TIME_RANGE} (minutes 00 to 59)`, null);
    bad = true;
  }
  if (s > 59) {
    cur.err(span, span, 'out_of_range', `second ${s} is out of range: seconds go from 00 to 59`, null);
    bad = true;
  }
  return { sec: bad ? null : h * 3600 + mi * 60 + s, span };
}

/** `between 9am and 5pm`, `from 9:00 to 17:00` (the clause reads `from 2026-12-04` as a start bound). */
export function betweenClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  const a = timeOfDay(cur, true);
  if (!a) {
    const t = cur.tok() ?? start;
    cur.err(
      start,
      t,
      'expected_time',
      `\`${start.text}\` must be followed by a time window, e.g. \`between 9am and 5pm\``,
    );
    return true;
  }
  if (!cur.accept('and', 'to', '-', 'until', 'till', '&')) {
    const t = cur.tok() ?? a.span;
    cur.err(start, t, 'incomplete', 'a time window needs an end: `between 9am and 5pm`');
    return true;
  }
  const b = timeOfDay(cur, true);
  if (!b) {
    const t = cur.tok() ?? start;
    cur.err(start, t, 'expected_time', 'a time window needs an end time: `between 9am and 5pm`');
    return true;
  }
  const span = cur.spanFrom(start);
  if (a.sec === null || b.sec === null) {
    return true;
  }
  if (a.sec === b.sec) {
    cur.err(span, span, 'invalid_window', 'the window starts and ends at the same time');
    return true;
  }
  if (!cur.dup(cur.spec.window, span, 'the time window')) {
    cur.spec.window = { from: a.sec, to: b.sec, span };
  }
  return true;
}
