/** Dates and one-offs: `2026-12-04 09:00`, `starting …`, `until …`, `next friday`, `in 20 minutes`. */
import { daysInMonth, wallFromFields } from '../../civil';
import { monthName, TIME_RANGE, type Cursor } from './cursor';
import type { Tok } from './lexer';
import type { Span } from './spec';
import { MONTHS, UNITS, WEEKDAYS } from './vocab';
import { monthList, setMonths } from './month-days';
import { isTimeStart, isTimeStartAt, timeOfDay } from './times';

/** `next monday`: a one-off on the first such weekday after the reference's date. */
export function nextClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  const day = WEEKDAYS[cur.low()];
  if (day === undefined) {
    const t = cur.tok() ?? start;
    cur.err(start, t, 'incomplete', '`next` must be followed by a day of the week, e.g. `next friday at 9am`');
    if (cur.tok() && !isTimeStart(cur) && cur.low() !== 'at') {
      cur.i++;
    }
    return true;
  }
  cur.i++;
  cur.setOneOff({ kind: 'next', weekday: day, span: cur.spanFrom(start) });
  return true;
}

/** `starting 2026-12-04`, `starting on 2026-12-04 at 9:00`, `until 2027-06-30`. */
export function boundClause(cur: Cursor, which: 'starting' | 'until'): boolean {
  const start = cur.tok()!;
  cur.i++;
  const at = cur.accept('on', 'from', 'at');
  const t = cur.tok();
  if (which === 'starting' && t && t.kind !== 'date' && isTimeStart(cur, at)) {
    // `every 6 hours starting at 2am`: a time of day phases the interval
    const tm = timeOfDay(cur, at);
    const span = cur.spanFrom(start);
    if (tm && tm.sec !== null && !cur.dup(cur.spec.phase, span, 'the starting time')) {
      cur.spec.phase = { sec: tm.sec, span };
    }
    return true;
  }
  if (which === 'starting' && t && (t.low === 'today' || t.low === 'tomorrow')) {
    cur.i++;
    let sec = 0;
    if (cur.is('at') && isTimeStartAt(cur, 1, true)) {
      cur.i++;
      sec = timeOfDay(cur, true)?.sec ?? 0;
    }
    const span = cur.spanFrom(start);
    if (!cur.dup(cur.spec.starting, span, 'the start')) {
      cur.spec.starting = { fl: sec * 1000, span, relDays: t.low === 'tomorrow' ? 1 : 0 };
    }
    return true;
  }
  if (!t || t.kind !== 'date') {
    cur.err(
      start,
      t ?? start,
      'expected_date',
      `\`${start.text}\` must be followed by a date like 2026-12-04 (optionally with a time: 2026-12-04 09:00)`,
    );
    if (t && t.kind !== 'word') {
      cur.i++;
    }
    return true;
  }
  const d = isoDate(cur);
  if (!d) {
    return true;
  }
  let fl = d.fl;
  let hasTime = d.hasTime;
  if (!hasTime && cur.is('at') && isTimeStartAt(cur, 1, true)) {
    cur.i++;
    const tm = timeOfDay(cur, true);
    if (tm?.sec !== null && tm) {
      fl += tm.sec * 1000;
      hasTime = true;
    }
  }
  const span = cur.spanFrom(start);
  if (which === 'starting') {
    if (!cur.dup(cur.spec.starting, span, 'the start')) {
      cur.spec.starting = { fl, span };
    }
  } else if (!cur.dup(cur.spec.until, span, 'the end')) {
    cur.spec.until = { fl, hasTime, span };
  }
  return true;
}

/** ISO date token (optionally with a time, also `… at 9am`), validated. */
export function isoDate(cur: Cursor): { fl: number; hasTime: boolean; span: Span } | null {
  const t = cur.tok()!;
  cur.i++;
  const { y, mo, d } = t as Required<Tok>;
  let bad = false;
  if (mo < 1 || mo > 12) {
    cur.err(t, t, 'out_of_range', `month ${mo} is out of range: months go from 01 to 12`);
    bad = true;
  } else if (d < 1 || d > daysInMonth(y, mo)) {
    cur.err(t, t, 'out_of_range', `${monthName(mo)} ${y} has ${daysInMonth(y, mo)} days; got day ${d}`, null);
    bad = true;
  }
  if (t.hasTime && (t.h! > 23 || t.mi! > 59 || t.s! > 59)) {
    cur.err(t, t, 'out_of_range', `time out of range: ${TIME_RANGE}`);
    bad = true;
  }
  if (bad) {
    return null;
  }
  let fl = wallFromFields(y, mo, d, t.h, t.mi, t.s);
  let hasTime = !!t.hasTime;
  if (!hasTime && cur.is('at') && isTimeStartAt(cur, 1, true)) {
    const save = cur.i;
    cur.i++;
    const tm = timeOfDay(cur, true);
    if (tm && tm.sec !== null) {
      fl += tm.sec * 1000;
      hasTime = true;
    } else if (!tm) {
      cur.i = save;
    }
  } else if (!hasTime && isTimeStart(cur)) {
    const tm = timeOfDay(cur);
    if (tm && tm.sec !== null) {
      fl += tm.sec * 1000;
      hasTime = true;
    }
  }
  return { fl, hasTime, span: cur.spanFrom(t) };
}

/** `in 20 minutes` (one-off), `in march` (month filter). */
export function inClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  if (MONTHS[cur.low()] !== undefined) {
    const months = monthList(cur);
    setMonths(cur, months, cur.spanFrom(start));
    return true;
  }
  const t = cur.tok();
  let n = 1;
  let counted = false;
  if (t && t.kind === 'num') {
    n = t.n!;
    cur.i++;
    counted = true;
  } else if (cur.is('a', 'an')) {
    cur.i++;
    counted = true;
  }
  const u = UNITS[cur.low()];
  if (u && !counted) {
    // `in minutes`: how many?
    cur.uncountedUnit(
      `\`in 20 ${u}s\`, or \`in ${u === 'hour' ? 'an' : 'a'} ${u}\``,
      `in ${u === 'hour' ? 'an' : 'a'} ${u}`,
    );
    return true;
  }
  if (!u) {
    cur.err(
      start,
      cur.tok() ?? start,
      'expected_unit',
      '`in` must be followed by a duration (`in 20 minutes`) or a month (`in march`)',
    );
    if (cur.tok() && cur.tok()!.kind !== 'word') {
      cur.i++;
    }
    return true;
  }
  cur.i++;
  const span = cur.spanFrom(start);
  if (n < 1 || n > 100_000) {
    cur.err(span, span, 'out_of_range', 'the delay must be between 1 and 100000 units');
    return true;
  }
  cur.setOneOff({ kind: 'in', n, unit: u, span });
  return true;
}
