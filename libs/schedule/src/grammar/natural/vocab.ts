/** Words of the natural grammar (lower case). Weekday 0 = Monday … 6 = Sunday; month 1..12. */
import { MONTH_NAMES as CALENDAR_MONTH_NAMES, WEEKDAY_NAMES } from '../../calendar-names';

export const WEEKDAYS: Record<string, number> = {};
export const WEEKDAY_PLURALS: Record<string, number> = {};
const DAY_NAMES = [...WEEKDAY_NAMES.slice(1), WEEKDAY_NAMES[0]].map((name) => name.toLowerCase());
const DAY_ABBR: string[][] = [
  ['mon'],
  ['tue', 'tues'],
  ['wed', 'weds'],
  ['thu', 'thur', 'thurs'],
  ['fri'],
  ['sat'],
  ['sun'],
];
DAY_NAMES.forEach((name, i) => {
  WEEKDAYS[name] = i;
  WEEKDAY_PLURALS[`${name}s`] = i;
  for (const a of DAY_ABBR[i]!) {
    WEEKDAYS[a] = i;
  }
});

export const MONTHS: Record<string, number> = {};
const MONTH_NAMES = CALENDAR_MONTH_NAMES.map((name) => name.toLowerCase());
const MONTH_ABBR: string[][] = [
  ['jan'],
  ['feb'],
  ['mar'],
  ['apr'],
  [],
  ['jun'],
  ['jul'],
  ['aug'],
  ['sep', 'sept'],
  ['oct'],
  ['nov'],
  ['dec'],
];
MONTH_NAMES.forEach((name, i) => {
  MONTHS[name] = i + 1;
  for (const a of MONTH_ABBR[i]!) {
    MONTHS[a] = i + 1;
  }
});

export type Unit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';
export const UNITS: Record<string, Unit> = {
  second: 'second',
  seconds: 'second',
  sec: 'second',
  secs: 'second',
  minute: 'minute',
  minutes: 'minute',
  min: 'minute',
  mins: 'minute',
  hour: 'hour',
  hours: 'hour',
  hr: 'hour',
  hrs: 'hour',
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
};
/** Duration letters as Temporal and Go write them (`1h30m`, `90s`): m is minutes. Only after a number. */
export const DURATION_UNITS: Record<string, Unit> = { h: 'hour', m: 'minute', s: 'second' };

/** `hourly` … `yearly`. */
export const ADVERBS: Record<string, Unit> = {
  hourly: 'hour',
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  yearly: 'year',
  annually: 'year',
  fortnightly: 'week',
  quarterly: 'month',
};
/** Steps of the adverbs that are not 1 (`fortnightly` = every 2 weeks, `quarterly` = every 3 months). */
export const ADVERB_STEPS: Record<string, number> = { fortnightly: 2, quarterly: 3 };

/** `once`, `twice`, `three times` … a day: how many times. */
export const TIMES_WORDS: Record<string, number> = { once: 1, twice: 2, thrice: 3 };
export const NUMBER_WORDS: Record<string, number> = { two: 2, three: 3, four: 4, six: 6, eight: 8, twelve: 12 };

export const ORDINAL_WORDS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, last: -1 };
export const ORDINAL_SUFFIXES = new Set(['st', 'nd', 'rd', 'th']);

/** Words with a meaning; everything else is an unknown word (with a spelling suggestion). */
export const KEYWORDS = [
  'every',
  'each',
  'other',
  'at',
  'on',
  'in',
  'of',
  'the',
  'and',
  'between',
  'from',
  'to',
  'until',
  'till',
  'through',
  'starting',
  'start',
  'starts',
  'beginning',
  'begins',
  'ending',
  'ends',
  'end',
  'times',
  'time',
  'for',
  'noon',
  'midday',
  'midnight',
  'am',
  'pm',
  "o'clock",
  'oclock',
  'tomorrow',
  'today',
  'next',
  'half',
  'quarter',
  'weekday',
  'weekdays',
  'weekend',
  'weekends',
  'workday',
  'workdays',
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'last',
  'st',
  'nd',
  'rd',
  'th',
  'a',
  'an',
  'then',
  'once',
  'twice',
  'thrice',
  'two',
  'three',
  'four',
  'six',
  'eight',
  'twelve',
  'per',
  'h',
  'm',
  's',
  'synchronized',
  'synchronised',
  'business',
  'past',
  'except',
  'excluding',
  'but',
  'not',
];

/** Suggestion vocabulary, preferred spellings first (ties keep this order). */
export const VOCABULARY: string[] = [
  ...DAY_NAMES,
  ...MONTH_NAMES,
  'every',
  'minutes',
  'minute',
  'hours',
  'hour',
  'seconds',
  'second',
  'days',
  'day',
  'weeks',
  'week',
  'months',
  'month',
  'years',
  'year',
  'weekdays',
  'weekday',
  'weekends',
  'weekend',
  ...Object.keys(ADVERBS),
  ...KEYWORDS,
  ...Object.keys(WEEKDAY_PLURALS),
  ...Object.keys(UNITS),
  ...Object.keys(WEEKDAYS),
  ...Object.keys(MONTHS),
];

const KNOWN = new Set(VOCABULARY);
export function isKnownWord(w: string): boolean {
  return KNOWN.has(w);
}
