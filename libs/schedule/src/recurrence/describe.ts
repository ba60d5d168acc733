/** Clear English for a recurrence rule (`Every weekday at 09:00 (Europe/Berlin)`). Pure formatting. */
import { MONTH_NAMES, WEEKDAY_NAMES } from '../calendar-names';
import { wallFields } from '../civil';
import type { Rule, TimePoint } from './rule';

/** Index 0 = Monday (RRULE numbering). */
const WEEKDAY = [...WEEKDAY_NAMES.slice(1), WEEKDAY_NAMES[0]];
const MONTH = MONTH_NAMES;
const ORD_WORD: Record<number, string> = {
  1: 'first',
  2: 'second',
  3: 'third',
  4: 'fourth',
  5: 'fifth',
  [-1]: 'last',
  [-2]: 'second to last',
};

export function joinList(items: string[]): string {
  if (items.length <= 1) {
    return items.join('');
  }
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `09:00`, `09:00:30`. */
export function clock(sec: number): string {
  const h = Math.floor(sec / 3600);
  const m = Math.floor(sec / 60) % 60;
  const s = sec % 60;
  return `${pad(h)}:${pad(m)}${s ? `:${pad(s)}` : ''}`;
}

export function describeTimes(times: number[]): string {
  if (times.length <= 6) {
    return `at ${joinList(times.map(clock))}`;
  }
  return `at ${clock(times[0]!)}, ${clock(times[1]!)}, … ${clock(times[times.length - 1]!)} (${times.length} times a day)`;
}

/** `weekday`, `weekend day`, `Monday and Thursday`. */
export function describeWeekdays(days: number[], plural = false): string {
  const d = [...new Set(days)].sort((a, b) => a - b).join(',');
  if (d === '0,1,2,3,4') {
    return plural ? 'weekdays' : 'weekday';
  }
  if (d === '5,6') {
    return plural ? 'weekends' : 'weekend day';
  }
  if (d === '0,1,2,3,4,5,6') {
    return plural ? 'every day' : 'day';
  }
  return joinList(days.map((x) => WEEKDAY[x]!));
}

function monthDayPhrase(v: number): string {
  if (v === -1) {
    return 'the last day';
  }
  if (v < 0) {
    return `the ${ordinal(-v)} to last day`;
  }
  return `the ${ordinal(v)}`;
}

function nthPhrase(n: number, day: number): string {
  return `${ORD_WORD[n] ?? (n > 0 ? ordinal(n) : `${ordinal(-n)} to last`)} ${WEEKDAY[day]}`;
}

export function formatDate(p: TimePoint, endOfDay = false): string {
  const fl = 'floating' in p ? p.floating : p.instant;
  const f = wallFields(fl);
  const date = `${f.y}-${pad(f.m)}-${pad(f.d)}`;
  const sec = f.h * 3600 + f.mi * 60 + f.s;
  const z = 'instant' in p ? ' UTC' : '';
  if (sec === 0 && !z) {
    return date;
  }
  if (endOfDay && sec === 86399 && !z) {
    return date;
  }
  return `${date} ${clock(sec)}${z}`;
}

export interface DescribeExtras {
  /** Explicit times of day (seconds) when BYSETPOS selects from the BYHOUR×BYMINUTE×BYSECOND grid. */
  times?: number[];
  /** Window phrase parts for `every 15 minutes between 9am and 5pm`. */
  window?: { step: string; from: number; to: number; last: number };
  /** `every 6 hours starting at 2am` (a step that divides the day): the same times every day. */
  phase?: { step: string; from: number };
  /** `the last weekday of the month`: BYDAY + BYSETPOS picking days (not times) of each month. */
  setPos?: { ns: number[]; label: string };
}

/** One sentence, without the zone. */
export function describeRule(r: Rule, x: DescribeExtras = {}): string {
  const n = r.interval;
  const times = x.times ?? grid(r);
  const plainDays = r.byDay?.filter((d) => d.n === 0).map((d) => d.day) ?? [];
  const nth = r.byDay?.filter((d) => d.n !== 0) ?? [];
  const monthFilter = r.byMonth
    ? ` in ${joinList([...r.byMonth].sort((a, b) => a - b).map((m) => MONTH[m - 1]!))}`
    : '';
  const mdays = r.byMonthDay ? joinList(sortSigned(r.byMonthDay).map(monthDayPhrase)) : '';
  let text: string;
  const sub = { HOURLY: 'hour', MINUTELY: 'minute', SECONDLY: 'second' } as Record<string, string>;
  if (x.setPos) {
    const list = joinList(
      sortSigned(x.setPos.ns).map((k) =>
        k === -1 ? 'last' : k < 0 ? `${ordinal(-k)} to last` : (ORD_WORD[k] ?? ordinal(k)),
      ),
    );
    const every = n === 1 ? 'every month' : r.freq === 'YEARLY' ? `every ${n} years` : `every ${n} months`;
    text = `The ${list} ${x.setPos.label} of ${every}${monthFilter}`;
    if (x.window) {
      return `${text}, every ${x.window.step} between ${clock(x.window.from)} and ${clock(x.window.to)} (last at ${clock(x.window.last)})${bounds(r)}`;
    }
    return `${text}${times.length ? ` ${describeTimes(times)}` : ''}${bounds(r)}`;
  }
  if (x.phase) {
    const list =
      times.length <= 6
        ? describeTimes(times)
        : `${times.length} times a day, ${clock(times[0]!)} to ${clock(times[times.length - 1]!)}`;
    text =
      x.phase.step === 'hour' && x.phase.from < 3600 && x.phase.from % 60 === 0
        ? `Every hour at minute ${x.phase.from / 60}`
        : `Every ${x.phase.step} from ${clock(x.phase.from)} (${list})`;
    if (plainDays.length) {
      text += ` on ${describeWeekdays(plainDays, true)}`;
    }
    if (mdays) {
      text += ` on ${mdays} of the month`;
    }
    return text + monthFilter + bounds(r);
  }
  if (x.window) {
    text = `Every ${x.window.step} between ${clock(x.window.from)} and ${clock(x.window.to)} (last at ${clock(x.window.last)})`;
    if (plainDays.length) {
      text += ` on ${describeWeekdays(plainDays, true)}`;
    }
    if (mdays) {
      text += ` on ${mdays} of the month`;
    }
    return text + monthFilter + bounds(r);
  }
  if (sub[r.freq]) {
    const u = sub[r.freq]!;
    text = n === 1 ? `Every ${u}` : `Every ${n} ${u}s`;
    const lim: string[] = [];
    if (r.freq === 'HOURLY' && r.byMinute && !(r.byMinute.length === 1 && (r.bySecond ?? [0]).every((s) => s === 0))) {
      lim.push(`at minute ${joinList(r.byMinute.map(String))}`);
    }
    if (r.byHour) {
      lim.push(`during hour ${joinList(r.byHour.map(pad))}`);
    }
    if (plainDays.length) {
      lim.push(`on ${describeWeekdays(plainDays, true)}`);
    }
    if (mdays) {
      lim.push(`on ${mdays} of the month`);
    }
    text += (lim.length ? ` ${lim.join(' ')}` : '') + monthFilter;
    return text + bounds(r);
  }
  const at = times.length ? ` ${describeTimes(times)}` : '';
  switch (r.freq) {
    case 'DAILY': {
      text = n === 1 ? 'Every day' : `Every ${n} days`;
      if (plainDays.length) {
        text = n === 1 ? `Every ${describeWeekdays(plainDays)}` : `${text} on ${describeWeekdays(plainDays, true)}`;
      }
      if (mdays) {
        text += ` on ${mdays} of the month`;
      }
      text += monthFilter;
      break;
    }
    case 'WEEKLY': {
      if (plainDays.length) {
        text = n === 1 ? `Every ${describeWeekdays(plainDays)}` : `Every ${n} weeks on ${describeWeekdays(plainDays)}`;
      } else {
        text = n === 1 ? 'Every week' : `Every ${n} weeks`;
      }
      text += monthFilter;
      break;
    }
    case 'MONTHLY': {
      const every = n === 1 ? 'every month' : `every ${n} months`;
      if (nth.length && !mdays && !plainDays.length) {
        const list = joinList(nth.map((d) => nthPhrase(d.n, d.day)));
        text = n === 1 ? `Every ${list} of the month` : `The ${list} of ${every}`;
      } else if (mdays && !nth.length) {
        text = `On ${mdays} of ${every}`;
        if (plainDays.length) {
          text += ` when it is a ${describeWeekdays(plainDays)}`;
        }
      } else {
        const parts = [
          ...(mdays ? [mdays] : []),
          ...nth.map((d) => `the ${nthPhrase(d.n, d.day)}`),
          ...(plainDays.length ? [`every ${describeWeekdays(plainDays)}`] : []),
        ];
        // no day named: the start's day of the month (RFC 5545), as `Every 2 weeks` keeps its weekday
        text = `${n === 1 ? 'Monthly' : `Every ${n} months`}${parts.length ? ` on ${joinList(parts)}` : ''}`;
      }
      text += monthFilter;
      break;
    }
    default: {
      const every = n === 1 ? 'Every year' : `Every ${n} years`;
      const months = r.byMonth ? [...r.byMonth].sort((a, b) => a - b) : [];
      if (months.length === 1 && r.byMonthDay?.length === 1 && r.byMonthDay[0]! > 0 && !r.byDay) {
        text = `${every} on ${MONTH[months[0]! - 1]} ${r.byMonthDay[0]}`;
      } else {
        const parts = [
          ...(mdays ? [mdays] : []),
          ...nth.map((d) => `the ${nthPhrase(d.n, d.day)}`),
          ...(plainDays.length ? [`${r.byWeekNo ? '' : 'every '}${describeWeekdays(plainDays)}`] : []),
        ];
        if (r.byYearDay) {
          parts.push(`day ${joinList(r.byYearDay.map(String))} of the year`);
        }
        if (r.byWeekNo) {
          parts.push(`in week ${joinList(r.byWeekNo.map(String))}`);
        }
        const of = months.length ? ` of ${joinList(months.map((m) => MONTH[m - 1]!))}` : '';
        text = parts.length ? `${every} on ${joinList(parts)}${of}` : `${every}${of ? ` in${of.slice(3)}` : ''}`;
      }
    }
  }
  return text + at + bounds(r);
}

function bounds(r: Rule): string {
  let s = '';
  if (r.dtstart && !(r.count === 1)) {
    s += `, starting ${formatDate(r.dtstart)}`;
  }
  if (r.until) {
    s += `, until ${formatDate(r.until, true)}`;
  }
  if (r.count !== null && r.count !== 1) {
    s += `, ${r.count} times`;
  }
  return s;
}

function grid(r: Rule): number[] {
  if (!r.byHour && !r.byMinute && !r.bySecond) {
    return [];
  }
  const out: number[] = [];
  for (const h of r.byHour ?? [0]) {
    for (const m of r.byMinute ?? [0]) {
      for (const s of r.bySecond ?? [0]) {
        out.push(h * 3600 + m * 60 + s);
      }
    }
  }
  return out.sort((a, b) => a - b);
}

function sortSigned(v: number[]): number[] {
  return [...v.filter((x) => x > 0).sort((a, b) => a - b), ...v.filter((x) => x < 0).sort((a, b) => b - a)];
}
