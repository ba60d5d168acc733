/** Days of the week: `weekdays`, `monday and thursday`, `mon-fri`, `except weekends`. */
import { CONJUNCTIONS, type Cursor } from './cursor';
import type { Tok } from './lexer';
import type { Span } from './spec';
import { WEEKDAYS, WEEKDAY_PLURALS } from './vocab';

/** `except weekends`, `except on mondays and fridays`, `excluding sunday`, `but not on saturdays`. */
export function exceptClause(cur: Cursor, start: Tok): boolean {
  cur.i += cur.low() === 'but' ? 2 : 1;
  cur.accept('on');
  const saved = cur.spec.weekdays;
  cur.spec.weekdays = null;
  const before = cur.errors.length;
  weekdayList(cur, start);
  const got = cur.spec.weekdays as { days: number[]; span: Span } | null;
  cur.spec.weekdays = saved;
  if (!got || cur.errors.length > before) {
    return true;
  }
  const span = cur.spanFrom(start);
  if (cur.spec.except) {
    cur.spec.except = {
      days: [...new Set([...cur.spec.except.days, ...got.days])].sort((a, b) => a - b),
      span: { start: cur.spec.except.span.start, end: span.end },
    };
  } else {
    cur.spec.except = { days: got.days, span };
  }
  return true;
}

/** `weekdays`, `weekends`, `monday and thursday`, `mon-fri`, `mondays`, `monday through friday`. */
export function weekdayList(cur: Cursor, start: Tok): boolean {
  const days = new Set<number>();
  let any = false;
  for (;;) {
    cur.budget.check();
    const w = cur.low();
    const t = cur.tok();
    if (!t) {
      break;
    }
    if (['weekday', 'weekdays', 'workday', 'workdays'].includes(w)) {
      [0, 1, 2, 3, 4].forEach((d) => days.add(d));
      cur.i++;
    } else if (w === 'business' && ['day', 'days'].includes(cur.low(1))) {
      [0, 1, 2, 3, 4].forEach((d) => days.add(d));
      cur.i += 2;
    } else if (w === 'weekend' || w === 'weekends') {
      days.add(5).add(6);
      cur.i++;
      cur.accept('day', 'days');
    } else if (WEEKDAYS[w] !== undefined || WEEKDAY_PLURALS[w] !== undefined) {
      const a = WEEKDAYS[w] ?? WEEKDAY_PLURALS[w]!;
      cur.i++;
      if (
        cur.is('-', 'to', 'through') &&
        (WEEKDAYS[cur.low(1)] !== undefined || WEEKDAY_PLURALS[cur.low(1)] !== undefined)
      ) {
        cur.i++;
        const b = WEEKDAYS[cur.low()] ?? WEEKDAY_PLURALS[cur.low()]!;
        cur.i++;
        for (let d = a; ; d = (d + 1) % 7) {
          days.add(d);
          if (d === b) {
            break;
          }
        }
      } else {
        days.add(a);
      }
    } else {
      break;
    }
    any = true;
    if (cur.acceptSeparator(startsWeekday)) {
      continue;
    }
    break;
  }
  if (!any) {
    cur.noItem(
      start,
      'expected a day: a weekday name (`monday`), `weekdays`, `weekends`, a day of the month (`the 1st`) or a date',
    );
    return true;
  }
  const span = cur.spanFrom(start);
  const list = [...days].sort((a, b) => a - b);
  const joined = CONJUNCTIONS.includes(cur.toks[cur.toks.indexOf(start) - 1]?.low ?? '');
  if (cur.spec.weekdays && !joined) {
    // a second set of days that is not joined by `and` narrows the first (`every weekday on monday`)
    const prev = cur.spec.weekdays;
    const common = prev.days.filter((d) => days.has(d));
    if (common.length === 0) {
      const without = (cur.expr.slice(0, span.start).trimEnd() + ' ' + cur.expr.slice(span.end).trimStart()).trim();
      cur.err(
        span,
        span,
        'never_fires',
        `"${cur.expr.slice(span.start, span.end)}" and "${cur.expr.slice(prev.span.start, prev.span.end)}" have no day in common: this never fires`,
        without,
      );
      return true;
    }
    cur.spec.weekdays = { days: common, span: prev.span };
    return true;
  }
  if (cur.spec.weekdays) {
    for (const d of list) {
      if (!cur.spec.weekdays.days.includes(d)) {
        cur.spec.weekdays.days.push(d);
      }
    }
    cur.spec.weekdays.days.sort((a, b) => a - b);
  } else {
    cur.spec.weekdays = { days: list, span };
  }
  return true;
}

function startsWeekday(cur: Cursor, k: number): boolean {
  const l = cur.low(k);
  return (
    WEEKDAYS[l] !== undefined ||
    WEEKDAY_PLURALS[l] !== undefined ||
    ['weekday', 'weekdays', 'weekend', 'weekends', 'workdays', 'business'].includes(l)
  );
}
