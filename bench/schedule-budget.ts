/**
 * How closely `validateSchedule` keeps its 100 ms cooperative budget on pathological inputs: each
 * one runs several times with the real clock (as the API runs it), and the script prints the
 * elapsed p50 / max per input and the worst overrun. Not a test: it measures, it never fails.
 *
 *   node -r @swc-node/register bench/schedule-budget.ts [runs per input, default 5]
 */
import { DEFAULT_BUDGET_MS, validateSchedule } from '@svc/schedule';

const list = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => from + i).join(',');
const EVERY_SECOND = `BYHOUR=${list(0, 23)};BYMINUTE=${list(0, 59)};BYSECOND=${list(0, 59)}`;
const ALL_DAYS = 'BYDAY=MO,TU,WE,TH,FR,SA,SU';

/** Inputs whose full computation takes far longer than the budget (or did before a fix). */
const INPUTS: Array<[label: string, expr: string, zone?: string]> = [
  ['SECONDLY, never fires (parity)', 'DTSTART:20260101T000000Z\nRRULE:FREQ=SECONDLY;INTERVAL=2;BYSECOND=1'],
  [
    'HOURLY, 3,600 candidates a period, never fires',
    `DTSTART:20260101T000000Z\nRRULE:FREQ=HOURLY;INTERVAL=2;BYHOUR=1;BYMINUTE=${list(0, 59)};BYSECOND=${list(0, 59)}`,
  ],
  ['YEARLY, every second of the year', `RRULE:FREQ=YEARLY;${ALL_DAYS};${EVERY_SECOND}`],
  ['YEARLY, every second, BYSETPOS=-1', `RRULE:FREQ=YEARLY;${ALL_DAYS};${EVERY_SECOND};BYSETPOS=-1`],
  [
    'YEARLY by week number, COUNT from 1900',
    `DTSTART:19000101T000000Z\nRRULE:FREQ=YEARLY;BYWEEKNO=${list(1, 53)};${ALL_DAYS};${EVERY_SECOND};COUNT=1000000`,
  ],
  ['COUNT=1000000 every second from 1970', 'DTSTART:19700101T000000Z\nRRULE:FREQ=SECONDLY;COUNT=1000000'],
  ['Quartz every second, Feb 31', '* * * 31 2 ? *'],
  ['Quartz every 59 s in a DST zone', '0/59 * * * * ?', 'Europe/Berlin'],
  // rare dates decades ahead: Quartz searches month by month up to its year limit (reference + 100)
  ['Quartz fifth Sunday of February (2032, …)', '0 0 0 ? 2 1#5', 'Australia/Lord_Howe'],
  ['Quartz fifth Monday of February from 2100', '0 0 0 ? 2 2#5 2100-2199', 'America/Santiago'],
  ['Quartz 29 February 2124', '0 0 12 29 2 ? 2124', 'Europe/Berlin'],
  ['Quartz never: fifth Sunday of Feb 2117-2126', '0 0 0 ? 2 1#5 2117-2126', 'America/New_York'],
  ['Quartz never: L-30 in February', '0 0 0 L-30 2 ?', 'Pacific/Chatham'],
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function main(): void {
  const runs = Number(process.argv[2] ?? 5);
  const rows: string[][] = [];
  let worst = 0;
  for (const [label, expr, zone = 'UTC'] of INPUTS) {
    const elapsed: number[] = [];
    let outcome = '';
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const v = validateSchedule(
        { expr, timezone: zone, reference: new Date() },
        { now: () => performance.now(), minIntervalMs: 60_000 },
      );
      elapsed.push(performance.now() - started);
      outcome = v.valid ? 'valid' : v.errors[0]!.kind;
    }
    elapsed.sort((a, b) => a - b);
    worst = Math.max(worst, elapsed[elapsed.length - 1]!);
    rows.push([label, outcome, percentile(elapsed, 0.5).toFixed(1), elapsed[elapsed.length - 1]!.toFixed(1)]);
  }
  const header = ['input', 'answer', 'p50 ms', 'max ms'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]): string => `| ${r.map((v, c) => v.padEnd(widths[c]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  rows.forEach((r) => console.log(line(r)));
  console.log(
    `worst elapsed = ${worst.toFixed(1)} ms against a ${DEFAULT_BUDGET_MS} ms budget (overrun ${(worst - DEFAULT_BUDGET_MS).toFixed(1)} ms)`,
  );
}

main();
