/** English description of a parsed Quartz expression. */
import {
  describeMonths,
  describeTimeOfDay,
  describeWeekdays,
  joinList,
  ordinalNumber,
  MONTH_NAMES,
  ordinalWord,
  WEEKDAY_NAMES,
} from '../describe';
import { ALL_SPEC, LAST_DAY_OFFSET_END, LAST_DAY_OFFSET_START, NO_SPEC, type QuartzFields } from './fields';

const clean = (v: number[]): number[] => v.filter((x) => x !== ALL_SPEC && x !== NO_SPEC);

function lastDayPhrase(enc: number): string {
  const off = LAST_DAY_OFFSET_END - enc;
  return off === 0
    ? 'the last day of the month'
    : `the day ${off} day${off === 1 ? '' : 's'} before the last day of the month`;
}

/** e.g. `At 12:00 every day (UTC)`, `At 10:15 on the last Friday of the month (Europe/Berlin)`. */
export function describeQuartz(q: QuartzFields, timezone: string): string {
  const time = describeTimeOfDay(clean(q.seconds), clean(q.minutes), clean(q.hours));
  let days: string;
  if (q.daysOfWeek.includes(NO_SPEC)) {
    const dom = clean(q.daysOfMonth);
    const plain = dom.filter((d) => d < LAST_DAY_OFFSET_START);
    const parts: string[] = [];
    const mons = clean(q.months);
    if (plain.length === 31) {
      parts.push('every day');
    } else if (mons.length === 1 && plain.length === dom.length && q.nearestWeekdays.length === 0) {
      const monthName = MONTH_NAMES[mons[0] - 1];
      const years = q.years ? ` ${joinList(q.years.map(String))}` : '';
      const text = `${describeTimeOfDay(clean(q.seconds), clean(q.minutes), clean(q.hours))} on ${joinList(plain.map((d) => `${monthName} ${d}`))}${years}`;
      return `${text.charAt(0).toUpperCase()}${text.slice(1)} (${timezone})`;
    } else if (plain.length) {
      parts.push(`on the ${joinList(plain.map(ordinalNumber))} of the month`);
    }
    for (const d of dom.filter((x) => x >= LAST_DAY_OFFSET_START)) {
      parts.push(`on ${lastDayPhrase(d)}`);
    }
    for (const w of q.nearestWeekdays) {
      if (w >= LAST_DAY_OFFSET_START) {
        parts.push(
          w === LAST_DAY_OFFSET_END ? 'on the last weekday of the month' : `on the weekday nearest ${lastDayPhrase(w)}`,
        );
      } else {
        parts.push(`on the weekday nearest the ${ordinalNumber(w)} of the month`);
      }
    }
    days = joinList(parts);
  } else {
    const dow = clean(q.daysOfWeek).map((d) => d - 1);
    if (q.lastDayOfWeek) {
      days = `on the last ${WEEKDAY_NAMES[dow[0]]} of the month`;
    } else if (q.nthDayOfWeek) {
      days = `on the ${ordinalWord(q.nthDayOfWeek)} ${WEEKDAY_NAMES[dow[0]]} of the month`;
    } else {
      days = describeWeekdays(dow);
    }
  }
  const months = describeMonths(clean(q.months));
  const years = q.years ? `in ${joinList(q.years.map(String))}` : '';
  const text = [time, days === 'every day' && /^every /i.test(time) ? '' : days, months, years]
    .filter(Boolean)
    .join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)} (${timezone})`;
}
