/**
 * next-100-occurrences per second: our cron engine vs croner vs cron-parser (issue #3 bench), and
 * our RRULE engine vs the `rrule` package (in UTC, where its time-zone handling does not matter).
 * Not a test. Run: node -r @swc-node/register bench/schedule-next.ts
 * Each op computes the next 100 fire times after a fixed instant, in UTC, for one expression.
 * Parsing is done once outside the timed loop for all three (each library's normal usage for
 * repeated previews is parse once, iterate).
 */
import { Cron } from 'croner';
import { CronExpressionParser } from 'cron-parser';
import { rrulestr } from 'rrule';
import { compileSchedule, UNLIMITED_BUDGET } from '@svc/schedule';
import { callFor } from './call-for';

const EXPRS = ['*/5 * * * *', '0 9 * * 1-5', '30 2 1 * *', '0 0 * * 0', '15,45 * * * *'];
const AFTER = new Date('2026-03-01T10:17:00Z');
const N = 100;
const TZ = process.argv[2] ?? 'UTC';

function opsPerSec(fn: () => void, ms = 700): number {
  for (let i = 0; i < 50; i++) {
    fn();
  } // warm-up
  const { calls, elapsedMs } = callFor(fn, ms);
  return (calls * 1000) / elapsedMs;
}

const rows: Array<Record<string, string>> = [];
for (const expr of EXPRS) {
  const r = compileSchedule({ expr, kind: 'cron', timezone: TZ, reference: AFTER });
  if (!r.ok) {
    throw new Error(expr);
  }
  const ours = r.schedule;
  const croner = new Cron(expr, { timezone: TZ, paused: true });
  const oursOps = opsPerSec(() => ours.next(AFTER, N, UNLIMITED_BUDGET));
  const cronerTz = opsPerSec(() => croner.nextRuns(N, AFTER));
  // croner is much faster without the `timezone` option (it then uses the process zone, which is
  // UTC on this machine); report the faster of the two so the comparison is not flattering to us
  const cronerLocal = new Cron(expr, { paused: true });
  const localIsUtc = new Date(2026, 0, 1).getTimezoneOffset() === 0 && TZ === 'UTC';
  const cronerOps = localIsUtc
    ? Math.max(
        cronerTz,
        opsPerSec(() => cronerLocal.nextRuns(N, AFTER)),
      )
    : cronerTz;
  const cpOps = opsPerSec(() => {
    const it = CronExpressionParser.parse(expr, { currentDate: AFTER, tz: TZ });
    for (let i = 0; i < N; i++) {
      it.next();
    }
  });
  // sanity: same first and last fire time
  const a = ours.next(AFTER, N, UNLIMITED_BUDGET);
  const b = croner.nextRuns(N, AFTER);
  if (a[N - 1].getTime() !== b[N - 1].getTime()) {
    throw new Error(`mismatch for ${expr}`);
  }
  const best = Math.max(cronerOps, cpOps);
  rows.push({
    expr,
    ours: oursOps.toFixed(0),
    croner: cronerOps.toFixed(0),
    'cron-parser': cpOps.toFixed(0),
    'ours/croner': (oursOps / cronerOps).toFixed(1),
    'ours/cron-parser': (oursOps / cpOps).toFixed(1),
    'ours/best': (oursOps / best).toFixed(1),
  });
}
console.log(`next-${N}-occurrences per second, zone ${TZ}, node ${process.version}`);
console.table(rows);

const RRULES = [
  'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
  'FREQ=MINUTELY;INTERVAL=5',
  'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
  'FREQ=YEARLY;BYMONTH=3,9;BYDAY=1SU;BYHOUR=6;BYMINUTE=0;BYSECOND=0',
];
// DTSTART at AFTER: the rrule package iterates from DTSTART on every call, so a past one would
// measure that rather than the expansion
const DTSTART = 'DTSTART:20260301T101700Z';
const rruleRows: Array<Record<string, string>> = [];
for (const rule of RRULES) {
  const r = compileSchedule({ expr: `${DTSTART}\nRRULE:${rule}`, kind: 'rrule', timezone: 'UTC', reference: AFTER });
  if (!r.ok) {
    throw new Error(rule);
  }
  const ours = r.schedule;
  const theirs = rrulestr(`${DTSTART}\nRRULE:${rule}`);
  const theirNext = (): Date[] =>
    theirs
      .all((_, i) => i <= N)
      .filter((d) => d > AFTER)
      .slice(0, N);
  const a = ours.next(AFTER, N, UNLIMITED_BUDGET);
  const b = theirNext();
  if (a.length !== N || a[N - 1].getTime() !== b[N - 1]?.getTime()) {
    throw new Error(`mismatch for ${rule}`);
  }
  const oursOps = opsPerSec(() => ours.next(AFTER, N, UNLIMITED_BUDGET));
  const theirOps = opsPerSec(theirNext);
  rruleRows.push({
    rule,
    ours: oursOps.toFixed(0),
    rrule: theirOps.toFixed(0),
    'ours/rrule': (oursOps / theirOps).toFixed(1),
  });
}
console.log(`RRULE next-${N}-occurrences per second, UTC (the rrule package's all(), DTSTART at the start instant)`);
console.table(rruleRows);
