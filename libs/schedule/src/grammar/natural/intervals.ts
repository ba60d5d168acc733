/** Intervals: `every 5 minutes`, `every 1h30m`, `every half hour`, `twice a day`; `every` also leads to days. */
import { MAX_INTERVAL } from '../../recurrence/rule';
import type { Cursor } from './cursor';
import type { Tok } from './lexer';
import type { Span } from './spec';
import {
  DURATION_UNITS,
  MONTHS,
  NUMBER_WORDS,
  ORDINAL_SUFFIXES,
  ORDINAL_WORDS,
  TIMES_WORDS,
  UNITS,
  WEEKDAYS,
  WEEKDAY_PLURALS,
} from './vocab';
import type { Unit } from './vocab';
import { dayList, monthDate } from './month-days';
import { weekdayList } from './weekdays';

const UNIT_SECONDS: Record<'hour' | 'minute' | 'second', number> = { hour: 3600, minute: 60, second: 1 };
/** Unit words that need a number (`every minutes` is not English; `every minute` is). */
const PLURAL_UNITS = new Set([
  'seconds',
  'secs',
  'minutes',
  'mins',
  'hours',
  'hrs',
  'days',
  'weeks',
  'months',
  'years',
]);

/** `twice a day`, `3 times a day`, `three times per day`, `twice daily` ahead? */
export function perDayAhead(cur: Cursor): boolean {
  let k = 0;
  if (TIMES_WORDS[cur.low()] !== undefined) {
    k = 1;
  } else if ((cur.tok()?.kind === 'num' || NUMBER_WORDS[cur.low()] !== undefined) && cur.is2('times', 'time')) {
    k = 2;
  } else {
    return false;
  }
  return cur.low(k) === 'daily' || (['a', 'per', 'each', 'every'].includes(cur.low(k)) && cur.low(k + 1) === 'day');
}

export function perDayClause(cur: Cursor, start: Tok): boolean {
  const w = cur.low();
  const k = TIMES_WORDS[w] ?? NUMBER_WORDS[w] ?? start.n!;
  cur.i += TIMES_WORDS[w] !== undefined ? 1 : 2;
  if (!cur.accept('daily')) {
    cur.i += 2;
  }
  const span = cur.spanFrom(start);
  if (k < 1 || k > 86_400 || 86_400 % k !== 0) {
    cur.err(
      span,
      span,
      'out_of_range',
      `${k} times a day cannot be evenly spaced in whole seconds; give the times (\`at 8am, 1pm and 6pm\`) or an interval (\`every 3 hours\`)`,
    );
    return true;
  }
  if (!cur.dup(cur.spec.perDay, span, 'the number of times a day')) {
    cur.spec.perDay = { k, span };
  }
  return true;
}

/** `every [N|other] unit`, `every weekday`, `every monday and thursday`, `every first monday`, `every 15th`, `every march 15`. */
export function everyClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  let n = 1;
  const t = cur.tok();
  if (t?.bad) {
    cur.i++;
    return true;
  }
  if (!t) {
    cur.err(
      start,
      start,
      'incomplete',
      '`every` must be followed by an interval or a day, e.g. `every 5 minutes`, `every monday`',
    );
    return true;
  }
  if (t.kind === 'num' && (ORDINAL_SUFFIXES.has(cur.low(1)) || MONTHS[cur.low(1)] !== undefined)) {
    return dayList(cur, start); // `every 15th`, `every 25 december`
  }
  if (t.kind === 'num' && compoundAhead(cur)) {
    return compoundInterval(cur, start);
  }
  if (t.kind === 'num' || cur.is('other')) {
    n = t.kind === 'num' ? t.n! : 2;
    cur.i++;
    const u = UNITS[cur.low()] ?? (t.kind === 'num' ? DURATION_UNITS[cur.low()] : undefined);
    if (!u) {
      const nt = cur.tok();
      cur.err(
        t,
        nt ?? t,
        'expected_unit',
        `expected a unit after "${t.text}": seconds, minutes, hours, days, weeks, months or years`,
        null,
      );
      if (nt && nt.kind !== 'num') {
        cur.i++;
      }
      return true;
    }
    const unitTok = cur.tok()!;
    cur.i++;
    const span = cur.spanFrom(start);
    if (n < 1) {
      cur.err(t, unitTok, 'out_of_range', `an interval must be at least 1 ${u}; got ${t.text}`);
      return true;
    }
    checkInterval(cur, n, u, { start: t.start, end: unitTok.end }, unitTok);
    if (!cur.dup(cur.spec.interval, span, 'the repetition')) {
      cur.spec.interval = { n, unit: u, span };
    }
    return true;
  }
  if (cur.is('half', 'quarter')) {
    return fractionOfHour(cur, start);
  }
  const u = UNITS[cur.low()];
  if (u && !(u === 'second' && isWeekdayAt(cur, 1))) {
    if (PLURAL_UNITS.has(cur.low())) {
      // `every minutes`: how many? (`every 5 minutes`, or `every minute`)
      cur.uncountedUnit(`\`every 5 ${u}s\`, or \`every ${u}\``, `every ${u}`);
      return true;
    }
    cur.i++;
    const span = cur.spanFrom(start);
    // `every weekend day`, `every day`
    if (!cur.dup(cur.spec.interval, span, 'the repetition')) {
      cur.spec.interval = { n: 1, unit: u, span };
    }
    return true;
  }
  if (
    cur.is('weekday', 'weekdays', 'weekend', 'weekends', 'workday', 'workdays', 'business') ||
    WEEKDAYS[cur.low()] !== undefined ||
    WEEKDAY_PLURALS[cur.low()] !== undefined
  ) {
    return weekdayList(cur, start);
  }
  if (ORDINAL_WORDS[cur.low()] !== undefined) {
    return dayList(cur, start);
  }
  if (MONTHS[cur.low()] !== undefined) {
    return monthDate(cur, start);
  }
  cur.err(
    start,
    t,
    'incomplete',
    '`every` must be followed by an interval or a day, e.g. `every 5 minutes`, `every monday`, `every first monday`',
  );
  return true;
}

function subDailyUnitAt(cur: Cursor, k: number): 'hour' | 'minute' | 'second' | undefined {
  const u = UNITS[cur.low(k)] ?? DURATION_UNITS[cur.low(k)];
  return u === 'hour' || u === 'minute' || u === 'second' ? u : undefined;
}

/** `1h30m`, `1 hour 30 minutes`, `1 hour and 30 minutes` ahead (two or more sub-daily parts)? */
function compoundAhead(cur: Cursor): boolean {
  if (!subDailyUnitAt(cur, 1)) {
    return false;
  }
  const k = cur.low(2) === 'and' ? 3 : 2;
  return cur.tok(k)?.kind === 'num' && !!subDailyUnitAt(cur, k + 1);
}

/** `every 1h30m`, `every 1 hour and 30 minutes`: one interval in seconds (the builder writes it in the largest exact unit). */
function compoundInterval(cur: Cursor, start: Tok): boolean {
  const first = cur.tok()!;
  let sec = 0;
  let last = first;
  for (;;) {
    const num = cur.tok()!;
    const u = subDailyUnitAt(cur, 1)!;
    cur.i += 2;
    last = cur.toks[cur.i - 1]!;
    sec += num.n! * UNIT_SECONDS[u];
    const k = cur.low() === 'and' ? 1 : 0;
    if (cur.tok(k)?.kind === 'num' && subDailyUnitAt(cur, k + 1)) {
      cur.i += k;
      continue;
    }
    break;
  }
  const span = cur.spanFrom(start);
  if (sec < 1) {
    cur.err(first, last, 'out_of_range', 'an interval must be at least 1 second');
    return true;
  }
  checkInterval(cur, sec, 'second', { start: first.start, end: last.end }, last);
  if (!cur.dup(cur.spec.interval, span, 'the repetition')) {
    cur.spec.interval = { n: sec, unit: 'second', span };
  }
  return true;
}

/** `every half hour`, `every half an hour`, `every quarter hour`, `every quarter of an hour`. */
function fractionOfHour(cur: Cursor, start: Tok): boolean {
  const fraction = cur.tok()!;
  const minutes = fraction.low === 'half' ? 30 : 15;
  cur.i++;
  cur.accept('of');
  cur.accept('an', 'a');
  if (!cur.accept('hour')) {
    const t = cur.tok() ?? fraction;
    cur.err(
      fraction,
      t,
      'expected_unit',
      `expected "hour" after "${fraction.text}", e.g. \`every ${fraction.low} hour\``,
      `every ${fraction.low} hour`,
    );
    return true;
  }
  const span = cur.spanFrom(start);
  if (!cur.dup(cur.spec.interval, span, 'the repetition')) {
    cur.spec.interval = { n: minutes, unit: 'minute', span };
  }
  return true;
}

function isWeekdayAt(cur: Cursor, k: number): boolean {
  return WEEKDAYS[cur.low(k)] !== undefined || WEEKDAY_PLURALS[cur.low(k)] !== undefined;
}

/**
 * Any whole number of any unit is an interval (`every 90 minutes`, `every 36 hours`), up to a
 * C/Java `int` as Quartz and cron read their steps; equal spellings are made one in the builder.
 */
function checkInterval(cur: Cursor, n: number, u: Unit, span: Span, _unitTok: Tok): void {
  if (n > MAX_INTERVAL) {
    cur.err(span, span, 'out_of_range', `an interval can be at most ${MAX_INTERVAL} ${u}s; got ${n}`);
  }
}
