/**
 * Recursive-descent parser for natural schedules: a sequence of clauses in any order
 * (`every …`, `on …`, `at …`, `between … and …`, `starting …`, `until …`, `N times`, one-offs),
 * collecting every independent error instead of stopping at the first.
 */
import { MONTH_NAMES } from '../../calendar-names';
import { errorAt, suggestAll } from '../../errors';
import type { Budget, ScheduleError } from '../../types';
import { daysInMonth, wallFromFields } from '../../civil';
import { MAX_INTERVAL } from '../../recurrence/rule';
import type { Tok } from './lexer';
import { tokenize } from './lexer';
import {
  ADVERBS,
  ADVERB_STEPS,
  DURATION_UNITS,
  MONTHS,
  NUMBER_WORDS,
  TIMES_WORDS,
  ORDINAL_SUFFIXES,
  ORDINAL_WORDS,
  UNITS,
  VOCABULARY,
  WEEKDAYS,
  WEEKDAY_PLURALS,
  isKnownWord,
} from './vocab';
import type { Unit } from './vocab';

export interface Span {
  start: number;
  end: number;
}
export interface TimeOfDay {
  /** Seconds after local midnight. */
  sec: number;
  span: Span;
}
export type OneOff =
  | { kind: 'in'; n: number; unit: Unit; span: Span }
  | { kind: 'date'; fl: number; hasTime: boolean; span: Span }
  | { kind: 'day'; offset: number; span: Span }
  /** `next friday`: the first such weekday after the reference's date (never the same day). */
  | { kind: 'next'; weekday: number; span: Span };

export interface Spec {
  interval: { n: number; unit: Unit; span: Span } | null;
  weekdays: { days: number[]; span: Span } | null;
  nthWeekdays: { list: { n: number; day: number }[]; span: Span } | null;
  /**
   * `the last weekday of the month`, `the first and last workday`, `the 2nd weekend day`: the nth
   * (negative: from the end) of `days` (0 = Monday) in each month, i.e. BYDAY + BYSETPOS.
   */
  setPos: { ns: number[]; days: number[]; label: 'weekday' | 'weekend day'; span: Span } | null;
  monthDays: { days: number[]; span: Span } | null;
  months: { months: number[]; span: Span } | null;
  /** A month-and-day (`march 15`) was given: the schedule is yearly. */
  yearDate: Span | null;
  /** `of every month` / `of the month` seen. */
  monthly: Span | null;
  times: TimeOfDay[];
  window: { from: number; to: number; span: Span } | null;
  /** `relDays` set for `starting today/tomorrow` (resolved against the reference by the builder). */
  starting: { fl: number; span: Span; relDays?: number } | null;
  until: { fl: number; hasTime: boolean; span: Span } | null;
  count: { n: number; span: Span } | null;
  oneOff: OneOff | null;
  /** `every 6 hours starting at 2am`: the time of day that phases a sub-daily interval. */
  phase: { sec: number; span: Span; minuteOfHour?: boolean } | null;
  /** `twice a day`, `3 times a day`: this many times a day. */
  perDay: { k: number; span: Span } | null;
  /** `except weekends`, `except on monday and friday`: days taken out. */
  except: { days: number[]; span: Span } | null;
}

export interface Misspelling {
  start: number;
  end: number;
  candidates: string[];
}

export interface ParseResult {
  spec: Spec;
  errors: ScheduleError[];
  ambiguous: Misspelling[];
}

const TIME_RANGE = 'times go from 00:00 to 23:59';
const UNIT_SECONDS: Record<'hour' | 'minute' | 'second', number> = { hour: 3600, minute: 60, second: 1 };
const CONJUNCTIONS = ['and', ',', 'then', '&'];
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

class Parser {
  private i = 0;
  readonly errors: ScheduleError[] = [];
  /** Misspelt words as close to several vocabulary words (`tice`: `time`, `twice`). */
  readonly ambiguous: Misspelling[] = [];
  readonly spec: Spec = {
    interval: null,
    weekdays: null,
    nthWeekdays: null,
    setPos: null,
    monthDays: null,
    months: null,
    yearDate: null,
    monthly: null,
    times: [],
    window: null,
    starting: null,
    until: null,
    count: null,
    oneOff: null,
    phase: null,
    perDay: null,
    except: null,
  };

  constructor(
    private readonly expr: string,
    private readonly toks: Tok[],
    private readonly budget: Budget,
  ) {}

  // ---- helpers -------------------------------------------------------------------------------

  private tok(k = 0): Tok | undefined {
    return this.toks[this.i + k];
  }
  private low(k = 0): string {
    const t = this.tok(k);
    return t && (t.kind === 'word' || t.kind === 'punct') ? t.low : '';
  }
  private is(...words: string[]): boolean {
    return words.includes(this.low());
  }
  private accept(...words: string[]): boolean {
    if (this.is(...words)) {
      this.i++;
      return true;
    }
    return false;
  }
  private err(from: Tok | Span, to: Tok | Span, kind: string, message: string, suggestion: string | null = null): void {
    this.errors.push(errorAt(this.expr, from.start, to.end, kind, message, suggestion));
  }
  private spanFrom(startTok: Tok): Span {
    const last = this.toks[this.i - 1] ?? startTok;
    return { start: startTok.start, end: Math.max(last.end, startTok.end) };
  }
  /** Reports a duplicate clause; returns true when `existing` is already set. */
  private dup(existing: unknown, span: Span, what: string): boolean {
    if (existing) {
      this.err(span, span, 'conflict', `${what} is given twice; give it once`);
      return true;
    }
    return false;
  }

  // ---- entry ---------------------------------------------------------------------------------

  parse(): void {
    this.correctSpelling();
    while (this.i < this.toks.length) {
      this.budget.check();
      const before = this.i;
      if (!this.clause()) {
        const t = this.tok()!;
        if (this.i === before) {
          this.unexpected(t);
          this.i++;
        }
      }
    }
  }

  /** Unknown words get an error (with the closest vocabulary word) and are read as that word. */
  private correctSpelling(): void {
    const kept: Tok[] = [];
    for (const t of this.toks) {
      if (t.kind === 'other') {
        this.err(
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
        this.ambiguous.push({ start: t.start, end: t.end, candidates: all });
      }
      this.err(
        t,
        t,
        'unknown_word',
        s ? `unknown word "${t.text}"; did you mean "${s}"?` : `unknown word "${t.text}"`,
        s,
      );
      kept.push(s ? { ...t, low: s } : { ...t, bad: true });
    }
    this.toks.splice(0, this.toks.length, ...kept);
  }

  private unexpected(t: Tok): void {
    const what = t.kind === 'num' ? `number ${t.text}` : `"${t.text}"`;
    let hint = '';
    if (t.kind === 'num') {
      hint = ': a number must be followed by a unit (`5 minutes`), `times`, `am`/`pm`, or come after `at`';
    } else if (t.low === 'at') {
      hint = ': `at` must be followed by a time (`at 9:30`, `at noon`) or a date';
    } else if (t.low === 'and' || t.low === ',') {
      hint = '';
    }
    this.err(t, t, 'unexpected_token', `unexpected ${what} here${hint}`);
  }

  // ---- clauses -------------------------------------------------------------------------------

  private clause(): boolean {
    const t = this.tok()!;
    if (t.bad) {
      this.i++;
      return true;
    }
    const w = this.low();
    if (CONJUNCTIONS.includes(w)) {
      this.conjunction(t);
      return true;
    }
    if (w === 'every' || w === 'each') {
      return this.every();
    }
    if (ADVERBS[w]) {
      this.i++;
      const span = this.spanFrom(t);
      if (!this.dup(this.spec.interval, span, 'the repetition')) {
        this.spec.interval = { n: ADVERB_STEPS[w] ?? 1, unit: ADVERBS[w]!, span };
      }
      return true;
    }
    if (this.perDayAhead()) {
      return this.perDayClause(t);
    }
    if (w === 'synchronized' || w === 'synchronised') {
      // Cloud Scheduler (groc): `every 2 hours synchronized` counts the steps from midnight
      this.i++;
      const span = this.spanFrom(t);
      if (!this.dup(this.spec.phase, span, 'the starting time')) {
        this.spec.phase = { sec: 0, span };
      }
      return true;
    }
    if (w === 'except' || w === 'excluding' || (w === 'but' && this.low(1) === 'not')) {
      return this.exceptClause(t);
    }
    if (w === 'on') {
      return this.on();
    }
    if (w === 'of') {
      return this.of();
    }
    if (w === 'at') {
      return this.at();
    }
    if (w === 'between' || w === 'from') {
      return this.between();
    }
    if (['starting', 'start', 'starts', 'beginning', 'begins'].includes(w)) {
      return this.bound('starting');
    }
    if (['until', 'till', 'through', 'ending', 'ends', 'end'].includes(w)) {
      return this.bound('until');
    }
    if (w === 'in') {
      return this.in();
    }
    if (w === 'for' && this.tok(1)?.kind === 'num' && ['times', 'time'].includes(this.low(2))) {
      this.i++;
      return this.clause();
    }
    if (w === 'next') {
      return this.next();
    }
    if (w === 'tomorrow' || w === 'today') {
      this.i++;
      this.setOneOff({ kind: 'day', offset: w === 'tomorrow' ? 1 : 0, span: this.spanFrom(t) });
      return true;
    }
    if (t.kind === 'num' && ['times', 'time'].includes(this.low(1))) {
      this.i += 2;
      const span = this.spanFrom(t);
      if (t.n! < 1) {
        this.err(span, span, 'out_of_range', 'the number of times must be at least 1');
      } else if (!this.dup(this.spec.count, span, 'the number of times')) {
        this.spec.count = { n: t.n!, span };
      }
      return true;
    }
    if (t.kind === 'date') {
      const d = this.date();
      if (d) {
        this.setOneOff({ kind: 'date', fl: d.fl, hasTime: d.hasTime, span: d.span });
      }
      return true;
    }
    if (
      w === 'the' ||
      (t.kind === 'num' && (ORDINAL_SUFFIXES.has(this.low(1)) || MONTHS[this.low(1)] !== undefined)) ||
      (ORDINAL_WORDS[w] !== undefined && !this.isTimeStart())
    ) {
      return this.dayList(t);
    }
    if (
      WEEKDAY_PLURALS[w] !== undefined ||
      ['weekdays', 'weekends', 'workdays'].includes(w) ||
      (w === 'business' && ['day', 'days'].includes(this.low(1))) ||
      WEEKDAYS[w] !== undefined
    ) {
      return this.weekdayList(t);
    }
    if (MONTHS[w] !== undefined) {
      return this.monthDate(t);
    }
    if (this.isTimeStart()) {
      this.timeList();
      return true;
    }
    return false;
  }

  /**
   * A conjunction between clauses (`every monday and at 9am`) is skipped; one that joins nothing
   * (at the start, or with nothing but conjunctions after it: `every monday and`) is an error,
   * suggesting the text without it.
   */
  private conjunction(t: Tok): void {
    const first = this.i === 0;
    let k = this.i + 1;
    while (k < this.toks.length && CONJUNCTIONS.includes(this.toks[k]!.low)) {
      k++;
    }
    const last = k >= this.toks.length;
    this.i++;
    if (!first && !last) {
      return;
    }
    const without = (this.expr.slice(0, t.start).trimEnd() + ' ' + this.expr.slice(t.end).trimStart()).trim();
    const where = first ? 'at the start' : 'at the end';
    this.err(
      t,
      t,
      'incomplete',
      `"${t.text}" ${where} joins nothing: add what it joins (\`every monday and friday\`) or remove it`,
      without === '' ? null : without,
    );
  }

  /** `twice a day`, `3 times a day`, `three times per day`, `twice daily` ahead? */
  private perDayAhead(): boolean {
    let k = 0;
    if (TIMES_WORDS[this.low()] !== undefined) {
      k = 1;
    } else if ((this.tok()?.kind === 'num' || NUMBER_WORDS[this.low()] !== undefined) && this.is2('times', 'time')) {
      k = 2;
    } else {
      return false;
    }
    return (
      this.low(k) === 'daily' || (['a', 'per', 'each', 'every'].includes(this.low(k)) && this.low(k + 1) === 'day')
    );
  }

  private is2(...words: string[]): boolean {
    return words.includes(this.low(1));
  }

  private perDayClause(start: Tok): boolean {
    const w = this.low();
    const k = TIMES_WORDS[w] ?? NUMBER_WORDS[w] ?? start.n!;
    this.i += TIMES_WORDS[w] !== undefined ? 1 : 2;
    if (!this.accept('daily')) {
      this.i += 2;
    }
    const span = this.spanFrom(start);
    if (k < 1 || k > 86_400 || 86_400 % k !== 0) {
      this.err(
        span,
        span,
        'out_of_range',
        `${k} times a day cannot be evenly spaced in whole seconds; give the times (\`at 8am, 1pm and 6pm\`) or an interval (\`every 3 hours\`)`,
      );
      return true;
    }
    if (!this.dup(this.spec.perDay, span, 'the number of times a day')) {
      this.spec.perDay = { k, span };
    }
    return true;
  }

  /** `except weekends`, `except on mondays and fridays`, `excluding sunday`, `but not on saturdays`. */
  private exceptClause(start: Tok): boolean {
    this.i += this.low() === 'but' ? 2 : 1;
    this.accept('on');
    const saved = this.spec.weekdays;
    this.spec.weekdays = null;
    const before = this.errors.length;
    this.weekdayList(start);
    const got = this.spec.weekdays as { days: number[]; span: Span } | null;
    this.spec.weekdays = saved;
    if (!got || this.errors.length > before) {
      return true;
    }
    const span = this.spanFrom(start);
    if (this.spec.except) {
      this.spec.except = {
        days: [...new Set([...this.spec.except.days, ...got.days])].sort((a, b) => a - b),
        span: { start: this.spec.except.span.start, end: span.end },
      };
    } else {
      this.spec.except = { days: got.days, span };
    }
    return true;
  }

  /** `next monday`: a one-off on the first such weekday after the reference's date. */
  private next(): boolean {
    const start = this.tok()!;
    this.i++;
    const day = WEEKDAYS[this.low()];
    if (day === undefined) {
      const t = this.tok() ?? start;
      this.err(start, t, 'incomplete', '`next` must be followed by a day of the week, e.g. `next friday at 9am`');
      if (this.tok() && !this.isTimeStart() && this.low() !== 'at') {
        this.i++;
      }
      return true;
    }
    this.i++;
    this.setOneOff({ kind: 'next', weekday: day, span: this.spanFrom(start) });
    return true;
  }

  private setOneOff(o: OneOff): void {
    if (!this.dup(this.spec.oneOff, o.span, 'the date')) {
      this.spec.oneOff = o;
    }
  }

  /** `every [N|other] unit`, `every weekday`, `every monday and thursday`, `every first monday`, `every 15th`, `every march 15`. */
  private every(): boolean {
    const start = this.tok()!;
    this.i++;
    let n = 1;
    const t = this.tok();
    if (t?.bad) {
      this.i++;
      return true;
    }
    if (!t) {
      this.err(
        start,
        start,
        'incomplete',
        '`every` must be followed by an interval or a day, e.g. `every 5 minutes`, `every monday`',
      );
      return true;
    }
    if (t.kind === 'num' && (ORDINAL_SUFFIXES.has(this.low(1)) || MONTHS[this.low(1)] !== undefined)) {
      return this.dayList(start); // `every 15th`, `every 25 december`
    }
    if (t.kind === 'num' && this.compoundAhead()) {
      return this.compoundInterval(start);
    }
    if (t.kind === 'num' || this.is('other')) {
      n = t.kind === 'num' ? t.n! : 2;
      this.i++;
      const u = UNITS[this.low()] ?? (t.kind === 'num' ? DURATION_UNITS[this.low()] : undefined);
      if (!u) {
        const nt = this.tok();
        this.err(
          t,
          nt ?? t,
          'expected_unit',
          `expected a unit after "${t.text}": seconds, minutes, hours, days, weeks, months or years`,
          null,
        );
        if (nt && nt.kind !== 'num') {
          this.i++;
        }
        return true;
      }
      const unitTok = this.tok()!;
      this.i++;
      const span = this.spanFrom(start);
      if (n < 1) {
        this.err(t, unitTok, 'out_of_range', `an interval must be at least 1 ${u}; got ${t.text}`);
        return true;
      }
      this.checkInterval(n, u, { start: t.start, end: unitTok.end }, unitTok);
      if (!this.dup(this.spec.interval, span, 'the repetition')) {
        this.spec.interval = { n, unit: u, span };
      }
      return true;
    }
    if (this.is('half', 'quarter')) {
      return this.fractionOfHour(start);
    }
    const u = UNITS[this.low()];
    if (u && !(u === 'second' && this.isWeekdayAt(1))) {
      if (PLURAL_UNITS.has(this.low())) {
        // `every minutes`: how many? (`every 5 minutes`, or `every minute`)
        const ut = this.tok()!;
        this.i++;
        this.err(
          ut,
          ut,
          'expected_number',
          `"${ut.text}" needs a number before it: \`every 5 ${u}s\`, or \`every ${u}\``,
          `every ${u}`,
        );
        return true;
      }
      this.i++;
      const span = this.spanFrom(start);
      // `every weekend day`, `every day`
      if (!this.dup(this.spec.interval, span, 'the repetition')) {
        this.spec.interval = { n: 1, unit: u, span };
      }
      return true;
    }
    if (
      this.is('weekday', 'weekdays', 'weekend', 'weekends', 'workday', 'workdays', 'business') ||
      WEEKDAYS[this.low()] !== undefined ||
      WEEKDAY_PLURALS[this.low()] !== undefined
    ) {
      return this.weekdayList(start);
    }
    if (ORDINAL_WORDS[this.low()] !== undefined) {
      return this.dayList(start);
    }
    if (MONTHS[this.low()] !== undefined) {
      return this.monthDate(start);
    }
    this.err(
      start,
      t,
      'incomplete',
      '`every` must be followed by an interval or a day, e.g. `every 5 minutes`, `every monday`, `every first monday`',
    );
    return true;
  }

  private subDailyUnitAt(k: number): 'hour' | 'minute' | 'second' | undefined {
    const u = UNITS[this.low(k)] ?? DURATION_UNITS[this.low(k)];
    return u === 'hour' || u === 'minute' || u === 'second' ? u : undefined;
  }

  /** `1h30m`, `1 hour 30 minutes`, `1 hour and 30 minutes` ahead (two or more sub-daily parts)? */
  private compoundAhead(): boolean {
    if (!this.subDailyUnitAt(1)) {
      return false;
    }
    const k = this.low(2) === 'and' ? 3 : 2;
    return this.tok(k)?.kind === 'num' && !!this.subDailyUnitAt(k + 1);
  }

  /** `every 1h30m`, `every 1 hour and 30 minutes`: one interval in seconds (the builder writes it in the largest exact unit). */
  private compoundInterval(start: Tok): boolean {
    const first = this.tok()!;
    let sec = 0;
    let last = first;
    for (;;) {
      const num = this.tok()!;
      const u = this.subDailyUnitAt(1)!;
      this.i += 2;
      last = this.toks[this.i - 1]!;
      sec += num.n! * UNIT_SECONDS[u];
      const k = this.low() === 'and' ? 1 : 0;
      if (this.tok(k)?.kind === 'num' && this.subDailyUnitAt(k + 1)) {
        this.i += k;
        continue;
      }
      break;
    }
    const span = this.spanFrom(start);
    if (sec < 1) {
      this.err(first, last, 'out_of_range', 'an interval must be at least 1 second');
      return true;
    }
    this.checkInterval(sec, 'second', { start: first.start, end: last.end }, last);
    if (!this.dup(this.spec.interval, span, 'the repetition')) {
      this.spec.interval = { n: sec, unit: 'second', span };
    }
    return true;
  }

  /** `every half hour`, `every half an hour`, `every quarter hour`, `every quarter of an hour`. */
  private fractionOfHour(start: Tok): boolean {
    const fraction = this.tok()!;
    const minutes = fraction.low === 'half' ? 30 : 15;
    this.i++;
    this.accept('of');
    this.accept('an', 'a');
    if (!this.accept('hour')) {
      const t = this.tok() ?? fraction;
      this.err(
        fraction,
        t,
        'expected_unit',
        `expected "hour" after "${fraction.text}", e.g. \`every ${fraction.low} hour\``,
        `every ${fraction.low} hour`,
      );
      return true;
    }
    const span = this.spanFrom(start);
    if (!this.dup(this.spec.interval, span, 'the repetition')) {
      this.spec.interval = { n: minutes, unit: 'minute', span };
    }
    return true;
  }

  private isWeekdayAt(k: number): boolean {
    return WEEKDAYS[this.low(k)] !== undefined || WEEKDAY_PLURALS[this.low(k)] !== undefined;
  }

  /**
   * Any whole number of any unit is an interval (`every 90 minutes`, `every 36 hours`), up to a
   * C/Java `int` as Quartz and cron read their steps; equal spellings are made one in the builder.
   */
  private checkInterval(n: number, u: Unit, span: Span, _unitTok: Tok): void {
    if (n > MAX_INTERVAL) {
      this.err(span, span, 'out_of_range', `an interval can be at most ${MAX_INTERVAL} ${u}s; got ${n}`);
    }
  }

  /** `on weekdays`, `on monday and thursday`, `on the 1st`, `on the first monday`, `on march 15`, `on 2026-12-01`. */
  private on(): boolean {
    const start = this.tok()!;
    this.i++;
    const t = this.tok();
    if (!t) {
      this.err(start, start, 'incomplete', '`on` must be followed by a day, e.g. `on monday`, `on the 1st`');
      return true;
    }
    if (t.bad) {
      this.i++;
      return true;
    }
    if (t.kind === 'date') {
      const d = this.date();
      if (d) {
        this.setOneOff({ kind: 'date', fl: d.fl, hasTime: d.hasTime, span: d.span });
      }
      return true;
    }
    if (this.is('the') || t.kind === 'num' || ORDINAL_WORDS[this.low()] !== undefined) {
      return this.dayList(start);
    }
    if (MONTHS[this.low()] !== undefined) {
      return this.monthDate(start);
    }
    return this.weekdayList(start);
  }

  /** `of every month`, `of the month`, `of each month`, `of every year` (markers), `of march` (after a month day). */
  private of(): boolean {
    const start = this.tok()!;
    this.i++;
    this.accept('every', 'each', 'the');
    if (this.accept('month')) {
      this.spec.monthly = this.spanFrom(start);
      return true;
    }
    if (this.accept('year')) {
      this.spec.yearDate = this.spec.yearDate ?? this.spanFrom(start);
      return true;
    }
    if (MONTHS[this.low()] !== undefined) {
      const months = this.monthList();
      this.setMonths(months, this.spanFrom(start));
      this.spec.yearDate = this.spec.yearDate ?? this.spanFrom(start);
      return true;
    }
    const t = this.tok() ?? start;
    this.err(start, t, 'unexpected_token', '`of` must be followed by `every month`, `the month` or a month name');
    return true;
  }

  private setMonths(months: number[], span: Span): void {
    if (!this.dup(this.spec.months, span, 'the month')) {
      this.spec.months = { months, span };
    }
  }

  private monthList(): number[] {
    const out: number[] = [];
    while (MONTHS[this.low()] !== undefined) {
      out.push(MONTHS[this.low()]!);
      this.i++;
      if ((this.is('and', ',') || this.is('&')) && MONTHS[this.low(1)] !== undefined) {
        this.i++;
      } else {
        break;
      }
    }
    return out;
  }

  /** `march 15`, `march 15th`, `every march 15` (yearly). */
  private monthDate(start: Tok): boolean {
    const mTok = this.tok()!;
    const month = MONTHS[mTok.low]!;
    this.i++;
    const dTok = this.tok();
    if (dTok && dTok.kind === 'num') {
      this.i++;
      if (ORDINAL_SUFFIXES.has(this.low())) {
        this.i++;
      }
      const span = this.spanFrom(start);
      const day = dTok.n!;
      if (day < 1 || day > daysInMonth(2000, month)) {
        this.err(
          dTok,
          dTok,
          'out_of_range',
          `${capital(mTok.low.length > 3 ? mTok.low : monthName(month))} has ${daysInMonth(2000, month)} days at most; got ${day}`,
          null,
        );
        return true;
      }
      this.setMonths([month], span);
      this.addMonthDays([day], span);
      this.spec.yearDate = span;
      return true;
    }
    // bare month name: a month filter (`every day in march`)
    this.i--;
    const months = this.monthList();
    this.setMonths(months, this.spanFrom(start));
    return true;
  }

  private addMonthDays(days: number[], span: Span): void {
    if (this.spec.monthDays) {
      this.spec.monthDays.days.push(...days);
      this.spec.monthDays.span = {
        start: Math.min(this.spec.monthDays.span.start, span.start),
        end: Math.max(this.spec.monthDays.span.end, span.end),
      };
    } else {
      this.spec.monthDays = { days, span };
    }
  }

  /**
   * A list of month days and/or nth weekdays: `the 1st`, `the 15th and last day`, `the first monday`,
   * `last friday`, `1st and 3rd monday`; optionally followed by `of every month` / `of march`.
   */
  private dayList(start: Tok): boolean {
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
          this.err(
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
      this.budget.check();
      this.accept('the');
      const t = this.tok();
      if (!t) {
        break;
      }
      let n: number | null = null;
      if (
        t.kind === 'num' &&
        (ORDINAL_SUFFIXES.has(this.low(1)) ||
          MONTHS[this.low(1)] !== undefined || // day first: `25 december`, `on 3 march`
          any ||
          this.toks[this.i - 1]?.low === 'the')
      ) {
        n = t.n!;
        this.i++;
        if (ORDINAL_SUFFIXES.has(this.low())) {
          this.i++;
        }
      } else if (ORDINAL_WORDS[this.low()] !== undefined) {
        n = ORDINAL_WORDS[this.low()]!;
        this.i++;
      } else {
        break;
      }
      any = true;
      // `the first and third monday`: a noun after a list applies to every ordinal before it
      pending.push({ n, t });
      const kind = this.setPosKindAt(0);
      if (kind) {
        // `the last weekday`, `the first workday`, `the 2nd weekend day` (of the month)
        this.i += kind.length;
        const max = kind.label === 'weekday' ? 20 : 8; // every month has at least 20 weekdays and 8 weekend days
        for (const p of pending.splice(0)) {
          if (p.n === 0 || p.n < -max || p.n > max) {
            this.err(
              p.t,
              this.toks[this.i - 1]!,
              'out_of_range',
              `a month has at least ${max} ${kind.label}s: use the 1st to the ${ordinalWord(max)}, or \`last\``,
              null,
            );
          } else if (setPos && setPos.label !== kind.label) {
            this.err(
              p.t,
              this.toks[this.i - 1]!,
              'conflict',
              `${kind.label}s and ${setPos.label}s cannot be mixed in one list`,
            );
          } else if (setPos) {
            setPos.ns.push(p.n);
          } else {
            setPos = { ns: [p.n], days: kind.days, label: kind.label };
          }
        }
      } else if (WEEKDAYS[this.low()] !== undefined || WEEKDAY_PLURALS[this.low()] !== undefined) {
        const wd = (WEEKDAYS[this.low()] ?? WEEKDAY_PLURALS[this.low()])!;
        this.i++;
        for (const p of pending.splice(0)) {
          if (p.n < -5 || p.n === 0 || p.n > 5) {
            this.err(
              p.t,
              this.toks[this.i - 1]!,
              'out_of_range',
              `a month has at most 5 of each weekday; got the ${p.n}th`,
              null,
            );
          } else {
            nth.push({ n: p.n, day: wd });
          }
        }
      } else if (this.accept('day') || !(this.is('and', ',', '&') && this.startsDayItem(1))) {
        monthDays(pending.splice(0));
      }
      if (this.is('and', ',', '&') && this.startsDayItem(1)) {
        this.i++;
        continue;
      }
      break;
    }
    if (!any) {
      const t = this.tok() ?? start;
      this.err(
        start,
        t,
        'incomplete',
        'expected a day of the month (`the 1st`, `the last day`) or a weekday (`the first monday`)',
      );
      if (this.tok() && this.i < this.toks.length && this.low() !== 'at') {
        this.i++;
      }
      return true;
    }
    const span = this.spanFrom(start);
    if (setPos) {
      if (this.spec.setPos) {
        this.err(span, span, 'conflict', `the ${setPos.label} of the month is given twice; give it once`);
      } else {
        this.spec.setPos = { ...setPos, span };
      }
    }
    if (days.length) {
      this.addMonthDays(days, span);
    }
    if (nth.length) {
      if (this.spec.nthWeekdays) {
        this.spec.nthWeekdays.list.push(...nth);
      } else {
        this.spec.nthWeekdays = { list: nth, span };
      }
    }
    // `of every month`, `of the month`, `of march`
    if (this.is('of')) {
      this.of();
    } else if (MONTHS[this.low()] !== undefined && days.length) {
      // day first: `the 15th march`, `25 december`, `on 3 march`
      const monthTok = this.tok()!;
      const months = this.monthList();
      const whole = this.spanFrom(start);
      const month = months[0]!;
      const day = days[0]!;
      if (days.length === 1 && months.length === 1 && day > daysInMonth(2000, month)) {
        // as for month first (`february 30`): the day is out of range for that month
        this.err(
          dayToks[0]!,
          dayToks[0]!,
          'out_of_range',
          `${capital(monthTok.low.length > 3 ? monthTok.low : monthName(month))} has ${daysInMonth(2000, month)} days at most; got ${day}`,
          null,
        );
        return true;
      }
      this.setMonths(months, whole);
      this.spec.yearDate = whole;
    }
    return true;
  }

  /** `weekday`, `workday` or `weekend day` at token k: what `the last …` counts. */
  private setPosKindAt(k: number): { length: number; days: number[]; label: 'weekday' | 'weekend day' } | null {
    const w = this.low(k);
    if (w === 'weekday' || w === 'workday') {
      return { length: 1, days: [0, 1, 2, 3, 4], label: 'weekday' };
    }
    if (w === 'business' && this.low(k + 1) === 'day') {
      return { length: 2, days: [0, 1, 2, 3, 4], label: 'weekday' };
    }
    if (w === 'weekend' && this.low(k + 1) === 'day') {
      return { length: 2, days: [5, 6], label: 'weekend day' };
    }
    return null;
  }

  private startsDayItem(k: number): boolean {
    const t = this.tok(k);
    if (!t) {
      return false;
    }
    const l = this.low(k) === 'the' ? this.low(k + 1) : this.low(k);
    const tt = this.low(k) === 'the' ? this.tok(k + 1) : t;
    if (!tt) {
      return false;
    }
    if (ORDINAL_WORDS[l] !== undefined) {
      return true;
    }
    if (tt.kind === 'num') {
      const nextLow = this.low(k + (this.low(k) === 'the' ? 2 : 1));
      return ORDINAL_SUFFIXES.has(nextLow) || !['am', 'pm', "o'clock", 'oclock', 'times', 'time'].includes(nextLow);
    }
    return false;
  }

  /** `weekdays`, `weekends`, `monday and thursday`, `mon-fri`, `mondays`, `monday through friday`. */
  private weekdayList(start: Tok): boolean {
    const days = new Set<number>();
    let any = false;
    for (;;) {
      this.budget.check();
      const w = this.low();
      const t = this.tok();
      if (!t) {
        break;
      }
      if (['weekday', 'weekdays', 'workday', 'workdays'].includes(w)) {
        [0, 1, 2, 3, 4].forEach((d) => days.add(d));
        this.i++;
      } else if (w === 'business' && ['day', 'days'].includes(this.low(1))) {
        [0, 1, 2, 3, 4].forEach((d) => days.add(d));
        this.i += 2;
      } else if (w === 'weekend' || w === 'weekends') {
        days.add(5).add(6);
        this.i++;
        this.accept('day', 'days');
      } else if (WEEKDAYS[w] !== undefined || WEEKDAY_PLURALS[w] !== undefined) {
        const a = WEEKDAYS[w] ?? WEEKDAY_PLURALS[w]!;
        this.i++;
        if (
          this.is('-', 'to', 'through') &&
          (WEEKDAYS[this.low(1)] !== undefined || WEEKDAY_PLURALS[this.low(1)] !== undefined)
        ) {
          this.i++;
          const b = WEEKDAYS[this.low()] ?? WEEKDAY_PLURALS[this.low()]!;
          this.i++;
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
      if (this.is('and', ',', '&') && this.startsWeekday(1)) {
        this.i++;
        continue;
      }
      break;
    }
    if (!any) {
      const t = this.tok() ?? start;
      this.err(
        start,
        t,
        'incomplete',
        'expected a day: a weekday name (`monday`), `weekdays`, `weekends`, a day of the month (`the 1st`) or a date',
      );
      if (this.tok() && this.low() !== 'at') {
        this.i++;
      }
      return true;
    }
    const span = this.spanFrom(start);
    const list = [...days].sort((a, b) => a - b);
    const joined = CONJUNCTIONS.includes(this.toks[this.toks.indexOf(start) - 1]?.low ?? '');
    if (this.spec.weekdays && !joined) {
      // a second set of days that is not joined by `and` narrows the first (`every weekday on monday`)
      const prev = this.spec.weekdays;
      const common = prev.days.filter((d) => days.has(d));
      if (common.length === 0) {
        const without = (this.expr.slice(0, span.start).trimEnd() + ' ' + this.expr.slice(span.end).trimStart()).trim();
        this.err(
          span,
          span,
          'never_fires',
          `"${this.expr.slice(span.start, span.end)}" and "${this.expr.slice(prev.span.start, prev.span.end)}" have no day in common: this never fires`,
          without,
        );
        return true;
      }
      this.spec.weekdays = { days: common, span: prev.span };
      return true;
    }
    if (this.spec.weekdays) {
      for (const d of list) {
        if (!this.spec.weekdays.days.includes(d)) {
          this.spec.weekdays.days.push(d);
        }
      }
      this.spec.weekdays.days.sort((a, b) => a - b);
    } else {
      this.spec.weekdays = { days: list, span };
    }
    return true;
  }

  private startsWeekday(k: number): boolean {
    const l = this.low(k);
    return (
      WEEKDAYS[l] !== undefined ||
      WEEKDAY_PLURALS[l] !== undefined ||
      ['weekday', 'weekdays', 'weekend', 'weekends', 'workdays', 'business'].includes(l)
    );
  }

  /** `at 9:30`, `at 8am and 8pm`, `at noon`, `at 2026-12-01 09:00`. */
  private at(): boolean {
    const start = this.tok()!;
    this.i++;
    const t = this.tok();
    if (t && t.kind === 'date') {
      const d = this.date();
      if (d) {
        this.setOneOff({ kind: 'date', fl: d.fl, hasTime: d.hasTime, span: { start: start.start, end: d.span.end } });
      }
      return true;
    }
    if (t && this.minuteOfHour(start)) {
      return true;
    }
    if (!t || !this.isTimeStart(true)) {
      this.err(
        start,
        t ?? start,
        'expected_time',
        '`at` must be followed by a time, e.g. `at 9:30`, `at 5pm`, `at noon`',
        null,
      );
      if (t && !this.is('and', ',') && t.kind !== 'word') {
        this.i++;
      }
      return true;
    }
    this.timeList(true);
    return true;
  }

  /**
   * `at minute 30`, `at 30 minutes past the hour`, `at 15 past`: the minute of every hour (cron's
   * `30 * * * *`), a phase of the hourly steps (`every 2 hours at 15 minutes past` = 00:15, 02:15 …).
   */
  private minuteOfHour(start: Tok): boolean {
    let n: Tok | undefined;
    let len: number;
    if (this.low() === 'minute' && this.tok(1)?.kind === 'num') {
      n = this.tok(1);
      len = 2;
    } else if (this.tok()?.kind === 'num' && ['minute', 'minutes', 'mins', 'min', 'past'].includes(this.low(1))) {
      const unit = this.low(1) !== 'past';
      if (unit && this.low(2) !== 'past') {
        return false;
      }
      n = this.tok();
      len = unit ? 3 : 2;
    } else {
      return false;
    }
    this.i += len;
    if (this.low() === 'the' && this.low(1) === 'hour') {
      this.i += 2;
    } else {
      this.accept('hour', 'each', 'every');
      this.accept('hour');
    }
    const span = this.spanFrom(start);
    if (n!.n! > 59) {
      this.err(n!, n!, 'out_of_range', `minute ${n!.n} is out of range: minutes go from 0 to 59`);
      return true;
    }
    if (!this.dup(this.spec.phase, span, 'the starting time')) {
      this.spec.phase = { sec: n!.n! * 60, span, minuteOfHour: true };
    }
    return true;
  }

  private timeList(afterAt = false): void {
    for (;;) {
      const tm = this.time(afterAt);
      if (tm && tm.sec !== null) {
        if (this.spec.times.some((x) => x.sec === tm.sec)) {
          this.err(tm.span, tm.span, 'conflict', 'this time is listed twice');
        } else {
          this.spec.times.push({ sec: tm.sec, span: tm.span });
        }
      }
      if (this.is('and', ',', '&') && this.isTimeStartAt(1, afterAt)) {
        this.i++;
        continue;
      }
      break;
    }
  }

  private isTimeStart(lenient = false): boolean {
    return this.isTimeStartAt(0, lenient);
  }

  /** Is token k the start of a time? Bare numbers count only after `at` (`lenient`) or with am/pm/o'clock. */
  private isTimeStartAt(k: number, lenient: boolean): boolean {
    const t = this.tok(k);
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
      const next = this.low(k + 1);
      if (['am', 'pm', "o'clock", 'oclock'].includes(next)) {
        return true;
      }
      return lenient && !UNITS[next] && !ORDINAL_SUFFIXES.has(next) && next !== 'times' && next !== 'time';
    }
    return false;
  }

  /** One time of day; `sec` null when it was out of range (an error was reported). */
  private time(lenient = false): { sec: number | null; span: Span } | null {
    const t = this.tok();
    if (!t || !this.isTimeStart(lenient)) {
      return null;
    }
    this.i++;
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
    if (this.is('am', 'pm')) {
      mer = this.low();
      this.i++;
    } else if (this.is("o'clock", 'oclock')) {
      this.i++;
    }
    const span = this.spanFrom(t);
    let bad = false;
    if (mer) {
      if (h < 1 || h > 12) {
        this.err(
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
      this.err(
        span,
        span,
        'out_of_range',
        `hour ${h} is out of range: ${TIME_RANGE}`,
        h === 24 && mi === 0 ? 'midnight' : null,
      );
      bad = true;
    }
    if (mi > 59) {
      this.err(span, span, 'out_of_range', `minute ${mi} is out of range: ${TIME_RANGE} (minutes 00 to 59)`, null);
      bad = true;
    }
    if (s > 59) {
      this.err(span, span, 'out_of_range', `second ${s} is out of range: seconds go from 00 to 59`, null);
      bad = true;
    }
    return { sec: bad ? null : h * 3600 + mi * 60 + s, span };
  }

  /** `between 9am and 5pm`, `from 9:00 to 17:00`; `from 2026-12-04` is a start bound. */
  private between(): boolean {
    const start = this.tok()!;
    if (start.low === 'from' && this.tok(1)?.kind === 'date') {
      return this.bound('starting');
    }
    this.i++;
    const a = this.time(true);
    if (!a) {
      const t = this.tok() ?? start;
      this.err(
        start,
        t,
        'expected_time',
        `\`${start.text}\` must be followed by a time window, e.g. \`between 9am and 5pm\``,
      );
      return true;
    }
    if (!this.accept('and', 'to', '-', 'until', 'till', '&')) {
      const t = this.tok() ?? a.span;
      this.err(start, t, 'incomplete', 'a time window needs an end: `between 9am and 5pm`');
      return true;
    }
    const b = this.time(true);
    if (!b) {
      const t = this.tok() ?? start;
      this.err(start, t, 'expected_time', 'a time window needs an end time: `between 9am and 5pm`');
      return true;
    }
    const span = this.spanFrom(start);
    if (a.sec === null || b.sec === null) {
      return true;
    }
    if (a.sec === b.sec) {
      this.err(span, span, 'invalid_window', 'the window starts and ends at the same time');
      return true;
    }
    if (!this.dup(this.spec.window, span, 'the time window')) {
      this.spec.window = { from: a.sec, to: b.sec, span };
    }
    return true;
  }

  /** `starting 2026-12-04`, `starting on 2026-12-04 at 9:00`, `until 2027-06-30`. */
  private bound(which: 'starting' | 'until'): boolean {
    const start = this.tok()!;
    this.i++;
    const at = this.accept('on', 'from', 'at');
    const t = this.tok();
    if (which === 'starting' && t && t.kind !== 'date' && this.isTimeStart(at)) {
      // `every 6 hours starting at 2am`: a time of day phases the interval
      const tm = this.time(at);
      const span = this.spanFrom(start);
      if (tm && tm.sec !== null && !this.dup(this.spec.phase, span, 'the starting time')) {
        this.spec.phase = { sec: tm.sec, span };
      }
      return true;
    }
    if (which === 'starting' && t && (t.low === 'today' || t.low === 'tomorrow')) {
      this.i++;
      let sec = 0;
      if (this.is('at') && this.isTimeStartAt(1, true)) {
        this.i++;
        sec = this.time(true)?.sec ?? 0;
      }
      const span = this.spanFrom(start);
      if (!this.dup(this.spec.starting, span, 'the start')) {
        this.spec.starting = { fl: sec * 1000, span, relDays: t.low === 'tomorrow' ? 1 : 0 };
      }
      return true;
    }
    if (!t || t.kind !== 'date') {
      this.err(
        start,
        t ?? start,
        'expected_date',
        `\`${start.text}\` must be followed by a date like 2026-12-04 (optionally with a time: 2026-12-04 09:00)`,
      );
      if (t && t.kind !== 'word') {
        this.i++;
      }
      return true;
    }
    const d = this.date();
    if (!d) {
      return true;
    }
    let fl = d.fl;
    let hasTime = d.hasTime;
    if (!hasTime && this.is('at') && this.isTimeStartAt(1, true)) {
      this.i++;
      const tm = this.time(true);
      if (tm?.sec !== null && tm) {
        fl += tm.sec * 1000;
        hasTime = true;
      }
    }
    const span = this.spanFrom(start);
    if (which === 'starting') {
      if (!this.dup(this.spec.starting, span, 'the start')) {
        this.spec.starting = { fl, span };
      }
    } else if (!this.dup(this.spec.until, span, 'the end')) {
      this.spec.until = { fl, hasTime, span };
    }
    return true;
  }

  /** ISO date token (optionally with a time, also `… at 9am`), validated. */
  private date(): { fl: number; hasTime: boolean; span: Span } | null {
    const t = this.tok()!;
    this.i++;
    const { y, mo, d } = t as Required<Tok>;
    let bad = false;
    if (mo < 1 || mo > 12) {
      this.err(t, t, 'out_of_range', `month ${mo} is out of range: months go from 01 to 12`);
      bad = true;
    } else if (d < 1 || d > daysInMonth(y, mo)) {
      this.err(t, t, 'out_of_range', `${monthName(mo)} ${y} has ${daysInMonth(y, mo)} days; got day ${d}`, null);
      bad = true;
    }
    if (t.hasTime && (t.h! > 23 || t.mi! > 59 || t.s! > 59)) {
      this.err(t, t, 'out_of_range', `time out of range: ${TIME_RANGE}`);
      bad = true;
    }
    if (bad) {
      return null;
    }
    let fl = wallFromFields(y, mo, d, t.h, t.mi, t.s);
    let hasTime = !!t.hasTime;
    if (!hasTime && this.is('at') && this.isTimeStartAt(1, true)) {
      const save = this.i;
      this.i++;
      const tm = this.time(true);
      if (tm && tm.sec !== null) {
        fl += tm.sec * 1000;
        hasTime = true;
      } else if (!tm) {
        this.i = save;
      }
    } else if (!hasTime && this.isTimeStart()) {
      const tm = this.time();
      if (tm && tm.sec !== null) {
        fl += tm.sec * 1000;
        hasTime = true;
      }
    }
    return { fl, hasTime, span: this.spanFrom(t) };
  }

  /** `in 20 minutes` (one-off), `in march` (month filter). */
  private in(): boolean {
    const start = this.tok()!;
    this.i++;
    if (MONTHS[this.low()] !== undefined) {
      const months = this.monthList();
      this.setMonths(months, this.spanFrom(start));
      return true;
    }
    const t = this.tok();
    let n = 1;
    let counted = false;
    if (t && t.kind === 'num') {
      n = t.n!;
      this.i++;
      counted = true;
    } else if (this.is('a', 'an')) {
      this.i++;
      counted = true;
    }
    const u = UNITS[this.low()];
    if (u && !counted) {
      // `in minutes`: how many?
      const ut = this.tok()!;
      this.i++;
      this.err(
        ut,
        ut,
        'expected_number',
        `"${ut.text}" needs a number before it: \`in 20 ${u}s\`, or \`in ${u === 'hour' ? 'an' : 'a'} ${u}\``,
        `in ${u === 'hour' ? 'an' : 'a'} ${u}`,
      );
      return true;
    }
    if (!u) {
      this.err(
        start,
        this.tok() ?? start,
        'expected_unit',
        '`in` must be followed by a duration (`in 20 minutes`) or a month (`in march`)',
      );
      if (this.tok() && this.tok()!.kind !== 'word') {
        this.i++;
      }
      return true;
    }
    this.i++;
    const span = this.spanFrom(start);
    if (n < 1 || n > 100_000) {
      this.err(span, span, 'out_of_range', 'the delay must be between 1 and 100000 units');
      return true;
    }
    this.setOneOff({ kind: 'in', n, unit: u, span });
    return true;
  }
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
const MONTH_FULL = MONTH_NAMES;
function monthName(m: number): string {
  return MONTH_FULL[m - 1]!;
}
function ordinalWord(n: number): string {
  return `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;
}
function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function parseNatural(expr: string, budget: Budget): ParseResult {
  const p = new Parser(expr, tokenize(expr), budget);
  p.parse();
  return { spec: p.spec, errors: p.errors, ambiguous: p.ambiguous };
}
