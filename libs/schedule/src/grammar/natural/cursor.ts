/** The natural parser's token cursor and result, shared by the construct parsers beside it. */
import { MONTH_NAMES } from '../../calendar-names';
import { errorAt } from '../../errors';
import type { Budget, ScheduleError } from '../../types';
import type { Tok } from './lexer';
import type { Misspelling, OneOff, Span, Spec } from './spec';

export const TIME_RANGE = 'times go from 00:00 to 23:59';
export const CONJUNCTIONS = ['and', ',', 'then', '&'];

export class Cursor {
  /** Index of the next unread token. */
  i = 0;
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
    readonly expr: string,
    readonly toks: Tok[],
    readonly budget: Budget,
  ) {}

  tok(k = 0): Tok | undefined {
    return this.toks[this.i + k];
  }
  low(k = 0): string {
    const t = this.tok(k);
    return t && (t.kind === 'word' || t.kind === 'punct') ? t.low : '';
  }
  is(...words: string[]): boolean {
    return words.includes(this.low());
  }
  /** Is the token after the current one one of `words`? */
  is2(...words: string[]): boolean {
    return words.includes(this.low(1));
  }
  accept(...words: string[]): boolean {
    if (this.is(...words)) {
      this.i++;
      return true;
    }
    return false;
  }
  err(from: Tok | Span, to: Tok | Span, kind: string, message: string, suggestion: string | null = null): void {
    this.errors.push(errorAt(this.expr, from.start, to.end, kind, message, suggestion));
  }
  spanFrom(startTok: Tok): Span {
    const last = this.toks[this.i - 1] ?? startTok;
    return { start: startTok.start, end: Math.max(last.end, startTok.end) };
  }
  /** Reports a duplicate clause; returns true when `existing` is already set. */
  dup(existing: unknown, span: Span, what: string): boolean {
    if (existing) {
      this.err(span, span, 'conflict', `${what} is given twice; give it once`);
      return true;
    }
    return false;
  }
  /**
   * Steps over a list's separator (`and`, `,`, `&`) when another item follows it
   * (`startsItem(cur, 1)`); false, and nothing read, otherwise.
   */
  acceptSeparator(startsItem: (cur: Cursor, k: number) => boolean): boolean {
    if (this.is('and', ',', '&') && startsItem(this, 1)) {
      this.i++;
      return true;
    }
    return false;
  }
  /**
   * A list begun at `start` that has no item: `incomplete` up to the token that is not one, which
   * is stepped over unless it starts the time (`at`), so the parse goes on after it.
   */
  noItem(start: Tok, message: string): void {
    this.err(start, this.tok() ?? start, 'incomplete', message);
    if (this.tok() && this.low() !== 'at') {
      this.i++;
    }
  }
  /** A unit word with no count before it (`in minutes`, `every hours`): `expected_number`, the word read. */
  uncountedUnit(message: string, suggestion: string): void {
    const unit = this.tok()!;
    this.i++;
    this.err(unit, unit, 'expected_number', `"${unit.text}" needs a number before it: ${message}`, suggestion);
  }
  setOneOff(o: OneOff): void {
    if (!this.dup(this.spec.oneOff, o.span, 'the date')) {
      this.spec.oneOff = o;
    }
  }
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
export function monthName(m: number): string {
  return MONTH_NAMES[m - 1]!;
}
export function ordinalWord(n: number): string {
  return `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;
}
export function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
