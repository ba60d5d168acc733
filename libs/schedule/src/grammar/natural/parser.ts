/**
 * Recursive-descent parser for natural schedules: a sequence of clauses in any order
 * (`every …`, `on …`, `at …`, `between … and …`, `starting …`, `until …`, `N times`, one-offs),
 * collecting every independent error instead of stopping at the first.
 */
import { suggestAll } from '../../errors';
import type { Budget } from '../../types';
import { CONJUNCTIONS, Cursor } from './cursor';
import { boundClause, inClause, isoDate, nextClause } from './dates';
import { everyClause, perDayAhead, perDayClause } from './intervals';
import type { Tok } from './lexer';
import { tokenize } from './lexer';
import { dayList, monthDate, ofClause } from './month-days';
import type { ParseResult } from './spec';
import { betweenClause, isTimeStart, minuteOfHour, timeList } from './times';
import {
  ADVERBS,
  ADVERB_STEPS,
  MONTHS,
  ORDINAL_SUFFIXES,
  ORDINAL_WORDS,
  VOCABULARY,
  WEEKDAYS,
  WEEKDAY_PLURALS,
  isKnownWord,
} from './vocab';
import { exceptClause, weekdayList } from './weekdays';

export function parseNatural(expr: string, budget: Budget): ParseResult {
  const cur = new Cursor(expr, tokenize(expr), budget);
  parseClauses(cur);
  return { spec: cur.spec, errors: cur.errors, ambiguous: cur.ambiguous };
}

function parseClauses(cur: Cursor): void {
  correctSpelling(cur);
  while (cur.i < cur.toks.length) {
    cur.budget.check();
    const before = cur.i;
    if (!clause(cur)) {
      const t = cur.tok()!;
      if (cur.i === before) {
        unexpected(cur, t);
        cur.i++;
      }
    }
  }
}

/** Unknown words get an error (with the closest vocabulary word) and are read as that word. */
function correctSpelling(cur: Cursor): void {
  const kept: Tok[] = [];
  for (const t of cur.toks) {
    if (t.kind === 'other') {
      cur.err(
        t,
        t,
        'unexpected_character',
        `unexpected "${t.text}": use words, numbers, times like 09:30 and dates like 2026-12-04`,
      );
      continue;
    }
    if (t.kind !== 'word' || isKnownWord(t.low)) {
      kept.push(t);
      continue;
    }
    const all = suggestAll(t.low, VOCABULARY);
    const s = all[0] ?? null;
    if (all.length > 1) {
      cur.ambiguous.push({ start: t.start, end: t.end, candidates: all });
    }
    cur.err(t, t, 'unknown_word', s ? `unknown word "${t.text}"; did you mean "${s}"?` : `unknown word "${t.text}"`, s);
    kept.push(s ? { ...t, low: s } : { ...t, bad: true });
  }
  cur.toks.splice(0, cur.toks.length, ...kept);
}

function unexpected(cur: Cursor, t: Tok): void {
  const what = t.kind === 'num' ? `number ${t.text}` : `"${t.text}"`;
  let hint = '';
  if (t.kind === 'num') {
    hint = ': a number must be followed by a unit (`5 minutes`), `times`, `am`/`pm`, or come after `at`';
  } else if (t.low === 'at') {
    hint = ': `at` must be followed by a time (`at 9:30`, `at noon`) or a date';
  } else if (t.low === 'and' || t.low === ',') {
    hint = '';
  }
  cur.err(t, t, 'unexpected_token', `unexpected ${what} here${hint}`);
}

function clause(cur: Cursor): boolean {
  const t = cur.tok()!;
  if (t.bad) {
    cur.i++;
    return true;
  }
  const w = cur.low();
  if (CONJUNCTIONS.includes(w)) {
    conjunction(cur, t);
    return true;
  }
  if (w === 'every' || w === 'each') {
    return everyClause(cur);
  }
  if (ADVERBS[w]) {
    cur.i++;
    const span = cur.spanFrom(t);
    if (!cur.dup(cur.spec.interval, span, 'the repetition')) {
      cur.spec.interval = { n: ADVERB_STEPS[w] ?? 1, unit: ADVERBS[w]!, span };
    }
    return true;
  }
  if (perDayAhead(cur)) {
    return perDayClause(cur, t);
  }
  if (w === 'synchronized' || w === 'synchronised') {
    // Cloud Scheduler (groc): `every 2 hours synchronized` counts the steps from midnight
    cur.i++;
    const span = cur.spanFrom(t);
    if (!cur.dup(cur.spec.phase, span, 'the starting time')) {
      cur.spec.phase = { sec: 0, span };
    }
    return true;
  }
  if (w === 'except' || w === 'excluding' || (w === 'but' && cur.low(1) === 'not')) {
    return exceptClause(cur, t);
  }
  if (w === 'on') {
    return onClause(cur);
  }
  if (w === 'of') {
    return ofClause(cur);
  }
  if (w === 'at') {
    return atClause(cur);
  }
  if (w === 'from' && cur.tok(1)?.kind === 'date') {
    return boundClause(cur, 'starting');
  }
  if (w === 'between' || w === 'from') {
    return betweenClause(cur);
  }
  if (['starting', 'start', 'starts', 'beginning', 'begins'].includes(w)) {
    return boundClause(cur, 'starting');
  }
  if (['until', 'till', 'through', 'ending', 'ends', 'end'].includes(w)) {
    return boundClause(cur, 'until');
  }
  if (w === 'in') {
    return inClause(cur);
  }
  if (w === 'for' && cur.tok(1)?.kind === 'num' && ['times', 'time'].includes(cur.low(2))) {
    cur.i++;
    return clause(cur);
  }
  if (w === 'next') {
    return nextClause(cur);
  }
  if (w === 'tomorrow' || w === 'today') {
    cur.i++;
    cur.setOneOff({ kind: 'day', offset: w === 'tomorrow' ? 1 : 0, span: cur.spanFrom(t) });
    return true;
  }
  if (t.kind === 'num' && ['times', 'time'].includes(cur.low(1))) {
    cur.i += 2;
    const span = cur.spanFrom(t);
    if (t.n! < 1) {
      cur.err(span, span, 'out_of_range', 'the number of times must be at least 1');
    } else if (!cur.dup(cur.spec.count, span, 'the number of times')) {
      cur.spec.count = { n: t.n!, span };
    }
    return true;
  }
  if (t.kind === 'date') {
    return oneOffDate(cur);
  }
  if (
    w === 'the' ||
    (t.kind === 'num' && (ORDINAL_SUFFIXES.has(cur.low(1)) || MONTHS[cur.low(1)] !== undefined)) ||
    (ORDINAL_WORDS[w] !== undefined && !isTimeStart(cur))
  ) {
    return dayList(cur, t);
  }
  if (
    WEEKDAY_PLURALS[w] !== undefined ||
    ['weekdays', 'weekends', 'workdays'].includes(w) ||
    (w === 'business' && ['day', 'days'].includes(cur.low(1))) ||
    WEEKDAYS[w] !== undefined
  ) {
    return weekdayList(cur, t);
  }
  if (MONTHS[w] !== undefined) {
    return monthDate(cur, t);
  }
  if (isTimeStart(cur)) {
    timeList(cur);
    return true;
  }
  return false;
}

/**
 * A conjunction between clauses (`every monday and at 9am`) is skipped; one that joins nothing
 * (at the start, or with nothing but conjunctions after it: `every monday and`) is an error,
 * suggesting the text without it.
 */
function conjunction(cur: Cursor, t: Tok): void {
  const first = cur.i === 0;
  let k = cur.i + 1;
  while (k < cur.toks.length && CONJUNCTIONS.includes(cur.toks[k]!.low)) {
    k++;
  }
  const last = k >= cur.toks.length;
  cur.i++;
  if (!first && !last) {
    return;
  }
  const without = (cur.expr.slice(0, t.start).trimEnd() + ' ' + cur.expr.slice(t.end).trimStart()).trim();
  const where = first ? 'at the start' : 'at the end';
  cur.err(
    t,
    t,
    'incomplete',
    `"${t.text}" ${where} joins nothing: add what it joins (\`every monday and friday\`) or remove it`,
    without === '' ? null : without,
  );
}

/** `on weekdays`, `on monday and thursday`, `on the 1st`, `on the first monday`, `on march 15`, `on 2026-12-01`. */
function onClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  const t = cur.tok();
  if (!t) {
    cur.err(start, start, 'incomplete', '`on` must be followed by a day, e.g. `on monday`, `on the 1st`');
    return true;
  }
  if (t.bad) {
    cur.i++;
    return true;
  }
  if (t.kind === 'date') {
    return oneOffDate(cur);
  }
  if (cur.is('the') || t.kind === 'num' || ORDINAL_WORDS[cur.low()] !== undefined) {
    return dayList(cur, start);
  }
  if (MONTHS[cur.low()] !== undefined) {
    return monthDate(cur, start);
  }
  return weekdayList(cur, start);
}

/** An ISO date token as the schedule's one date (`2026-12-01`, `on 2026-12-01 09:00`), its span from `from` when given. */
function oneOffDate(cur: Cursor, from?: Tok): true {
  const d = isoDate(cur);
  if (d) {
    const span = from ? { start: from.start, end: d.span.end } : d.span;
    cur.setOneOff({ kind: 'date', fl: d.fl, hasTime: d.hasTime, span });
  }
  return true;
}

/** `at 9:30`, `at 8am and 8pm`, `at noon`, `at 2026-12-01 09:00`. */
function atClause(cur: Cursor): boolean {
  const start = cur.tok()!;
  cur.i++;
  const t = cur.tok();
  if (t && t.kind === 'date') {
    return oneOffDate(cur, start);
  }
  if (t && minuteOfHour(cur, start)) {
    return true;
  }
  if (!t || !isTimeStart(cur, true)) {
    cur.err(
      start,
      t ?? start,
      'expected_time',
      '`at` must be followed by a time, e.g. `at 9:30`, `at 5pm`, `at noon`',
      null,
    );
    if (t && !cur.is('and', ',') && t.kind !== 'word') {
      cur.i++;
    }
    return true;
  }
  timeList(cur, true);
  return true;
}
