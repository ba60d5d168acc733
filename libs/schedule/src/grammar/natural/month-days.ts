/** Days of the month and months: `the 1st and 15th`, `the last friday`, `the last weekday`, `march 15`, `of every month`. */
import { daysInMonth } from '../../civil';
import { capital, monthName, ordinalWord, type Cursor } from './cursor';
import type { Tok } from './lexer';
import type { Span } from './spec';
import { MONTHS, ORDINAL_SUFFIXES, ORDINAL_WORDS, WEEKDAYS, WEEKDAY_PLURALS } from './vocab';

/** `of every month`, `of the month`, `of each month`, `of every year` (markers), `of march` (after a month day). */
export function ofClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  cur.accept('every', 'each', 'the');
  if (cur.accept('month')) {
    cur.spec.monthly = cur.spanFrom(start);
    return true;
  }
  if (cur.accept('year')) {
    cur.spec.yearDate = cur.spec.yearDate ?? cur.spanFrom(start);
    return true;
  }
  if (MONTHS[cur.low()] !== undefined) {
    const months = monthList(cur);
    setMonths(cur, months, cur.spanFrom(start));
    cur.spec.yearDate = cur.spec.yearDate ?? cur.spanFrom(start);
    return true;
  }
  const t = cur.tok() ?? start;
  cur.err(start, t, 'unexpected_token', '`of` must be followed by `every month`, `the month` or a month name');
  return true;
}

export function setMonths(cur: Cursor, months: number[], span: Span): void {
  if (!cur.dup(cur.spec.months, span, 'the month')) {
    cur.spec.months = { months, span };
  }
}

export function monthList(cur: Cursor): number[] {
  const out: number[] = [];
  while (MONTHS[cur.low()] !== undefined) {
    out.push(MONTHS[cur.low()]!);
    cur.i++;
    if ((cur.is('and', ',') || cur.is('&')) && MONTHS[cur.low(1)] !== undefined) {
      cur.i++;
    } else {
      break;
    }
  }
  return out;
}

/** `march 15`, `march 15th`, `every march 15` (yearly). */
export function monthDate(cur: Cursor, start: Tok): boolean {
  const mTok = cur.tok()!;
  const month = MONTHS[mTok.low]!;
  cur.i++;
  const dTok = cur.tok();
  if (dTok && dTok.kind === 'num') {
    cur.i++;
    if (ORDINAL_SUFFIXES.has(cur.low())) {
      cur.i++;
    }
    const span = cur.spanFrom(start);
    const day = dTok.n!;
    if (day < 1 || day > daysInMonth(2000, month)) {
      cur.err(
        dTok,
        dTok,
        'out_of_range',
        `${capital(mTok.low.length > 3 ? mTok.low : monthName(month))} has ${daysInMonth(2000, month)} days at most; got ${day}`,
        null,
      );
      return true;
    }
    setMonths(cur, [month], span);
    addMonthDays(cur, [day], span);
    cur.spec.yearDate = span;
    return true;
  }
  // bare month name: a month filter (`every day in march`)
  cur.i--;
  const months = monthList(cur);
  setMonths(cur, months, cur.spanFrom(start));
  return true;
}

function addMonthDays(cur: Cursor, days: number[], span: Span): void {
  if (cur.spec.monthDays) {
    cur.spec.monthDays.days.push(...days);
    cur.spec.monthDays.span = {
      start: Math.min(cur.spec.monthDays.span.start, span.start),
      end: Math.max(cur.spec.monthDays.span.end, span.end),
    };
  } else {
    cur.spec.monthDays = { days, span };
  }
}

/**
 * A list of month days and/or nth weekdays: `the 1st`, `the 15th and last day`, `the first monday`,
 * `last friday`, `1st and 3rd monday`; optionally followed by `of every month` / `of march`.
 */
export function dayList(cur: Cursor, start: Tok): boolean {
  const days: number[] = [];
  const dayToks: Tok[] = [];
  const nth: { n: number; day: number }[] = [];
  let setPos: { ns: number[]; days: number[]; label: 'weekday' | 'weekend day' } | null = null;
  let any = false;
  const pending: { n: number; t: Tok }[] = [];
  const monthDays = (items: { n: number; t: Tok }[]): void => {
    for (const { n, t } of items) {
      if (n === -1 || (n >= 1 && n <= 31)) {
        days.push(n);
        dayToks.push(t);
      } else {
        cur.err(
          t,
          t,
          'out_of_range',
          `days of the month go from the 1st to the 31st (or \`last day\`); got ${n}`,
          null, // `last day` would be another schedule, not a fix
        );
      }
    }
  };
  for (;;) {
    cur.budget.check();
    cur.accept('the');
    const t = cur.tok();
    if (!t) {
      break;
    }
    let n: number | null = null;
    if (
      t.kind === 'num' &&
      (ORDINAL_SUFFIXES.has(cur.low(1)) ||
        MONTHS[cur.low(1)] !== undefined || // day first: `25 december`, `on 3 march`
        any ||
        cur.toks[cur.i - 1]?.low === 'the')
    ) {
      n = t.n!;
      cur.i++;
      if (ORDINAL_SUFFIXES.has(cur.low())) {
        cur.i++;
      }
    } else if (ORDINAL_WORDS[cur.low()] !== undefined) {
      n = ORDINAL_WORDS[cur.low()]!;
      cur.i++;
    } else {
      break;
    }
    any = true;
    // `the first and third monday`: a noun after a list applies to every ordinal before it
    pending.push({ n, t });
    const kind = setPosKindAt(cur, 0);
    if (kind) {
      // `the last weekday`, `the first workday`, `the 2nd weekend day` (of the month)
      cur.i += kind.length;
      const max = kind.label === 'weekday' ? 20 : 8; // every month has at least 20 weekdays and 8 weekend days
      for (const p of pending.splice(0)) {
        if (p.n === 0 || p.n < -max || p.n > max) {
          cur.err(
            p.t,
            cur.toks[cur.i - 1]!,
            'out_of_range',
            `a month has at least ${max} ${kind.label}s: use the 1st to the ${ordinalWord(max)}, or \`last\``,
            null,
          );
        } else if (setPos && setPos.label !== kind.label) {
          cur.err(
            p.t,
            cur.toks[cur.i - 1]!,
            'conflict',
            `${kind.label}s and ${setPos.label}s cannot be mixed in one list`,
          );
        } else if (setPos) {
          setPos.ns.push(p.n);
        } else {
          setPos = { ns: [p.n], days: kind.days, label: kind.label };
        }
      }
    } else if (WEEKDAYS[cur.low()] !== undefined || WEEKDAY_PLURALS[cur.low()] !== undefined) {
      const wd = (WEEKDAYS[cur.low()] ?? WEEKDAY_PLURALS[cur.low()])!;
      cur.i++;
      for (const p of pending.splice(0)) {
        if (p.n < -5 || p.n === 0 || p.n > 5) {
          cur.err(
            p.t,
            cur.toks[cur.i - 1]!,
            'out_of_range',
            `a month has at most 5 of each weekday; got the ${p.n}th`,
            null,
          );
        } else {
          nth.push({ n: p.n, day: wd });
        }
      }
    } else if (cur.accept('day') || !(cur.is('and', ',', '&') && startsDayItem(cur, 1))) {
      monthDays(pending.splice(0));
    }
    if (cur.acceptSeparator(startsDayItem)) {
      continue;
    }
    break;
  }
  if (!any) {
    cur.noItem(start, 'expected a day of the month (`the 1st`, `the last day`) or a weekday (`the first monday`)');
    return true;
  }
  const span = cur.spanFrom(start);
  if (setPos) {
    if (cur.spec.setPos) {
      cur.err(span, span, 'conflict', `the ${setPos.label} of the month is given twice; give it once`);
    } else {
      cur.spec.setPos = { ...setPos, span };
    }
  }
  if (days.length) {
    addMonthDays(cur, days, span);
  }
  if (nth.length) {
    if (cur.spec.nthWeekdays) {
      cur.spec.nthWeekdays.list.push(...nth);
    } else {
      cur.spec.nthWeekdays = { list: nth, span };
    }
  }
  // `of every month`, `of the month`, `of march`
  if (cur.is('of')) {
    ofClause(cur);
  } else if (MONTHS[cur.low()] !== undefined && days.length) {
    // day first: `the 15th march`, `25 december`, `on 3 march`
    const monthTok = cur.tok()!;
    const months = monthList(cur);
    const whole = cur.spanFrom(start);
    const month = months[0]!;
    const day = days[0]!;
    if (days.length === 1 && months.length === 1 && day > daysInMonth(2000, month)) {
      // as for month first (`february 30`): the day is out of range for that month
      cur.err(
        dayToks[0]!,
        dayToks[0]!,
        'out_of_range',
        `${capital(monthTok.low.length > 3 ? monthTok.low : monthName(month))} has ${daysInMonth(2000, month)} days at most; got ${day}`,
        null,
      );
      return true;
    }
    setMonths(cur, months, whole);
    cur.spec.yearDate = whole;
  }
  return true;
}

/** `weekday`, `workday` or `weekend day` at token k: what `the last …` counts. */
function setPosKindAt(
  cur: Cursor,
  k: number,
): { length: number; days: number[]; label: 'weekday' | 'weekend day' } | null {
  const w = cur.low(k);
  if (w === 'weekday' || w === 'workday') {
    return { length: 1, days: [0, 1, 2, 3, 4], label: 'weekday' };
  }
  if (w === 'business' && cur.low(k + 1) === 'day') {
    return { length: 2, days: [0, 1, 2, 3, 4], label: 'weekday' };
  }
  if (w === 'weekend' && cur.low(k + 1) === 'day') {
    return { length: 2, days: [5, 6], label: 'weekend day' };
  }
  return null;
}

function startsDayItem(cur: Cursor, k: number): boolean {
  const t = cur.tok(k);
  if (!t) {
    return false;
  }
  const l = cur.low(k) === 'the' ? cur.low(k + 1) : cur.low(k);
  const tt = cur.low(k) === 'the' ? cur.tok(k + 1) : t;
  if (!tt) {
    return false;
  }
  if (ORDINAL_WORDS[l] !== undefined) {
    return true;
  }
  if (tt.kind === 'num') {
    const nextLow = cur.low(k + (cur.low(k) === 'the' ? 2 : 1));
    return ORDINAL_SUFFIXES.has(nextLow) || !['am', 'pm', "o'clock", 'oclock', 'times', 'time'].includes(nextLow);
  }
  return false;
}
