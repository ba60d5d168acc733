/**
 * Regenerates test/fixtures/quartz-oracle.json from the REAL Quartz CronExpression (v2.5.2).
 * Not a test. Needs a JDK (javac/java) and Quartz's CronExpression.java, which is standalone:
 *   git show v2.5.2:quartz/src/main/java/org/quartz/CronExpression.java > /tmp/qz/org/quartz/CronExpression.java
 *   node -r @swc-node/register libs/schedule/test/oracle/gen-quartz-fixtures.ts /tmp/qz
 * The harness sets the zone with TimeZone.getTimeZone and calls getTimeAfter repeatedly.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '/tmp/qz';
mkdirSync(join(dir, 'out'), { recursive: true });
copyFileSync(join(__dirname, 'Oracle.java'), join(dir, 'Oracle.java'));
execFileSync('javac', ['-d', join(dir, 'out'), join(dir, 'org/quartz/CronExpression.java'), join(dir, 'Oracle.java')]);

// deterministic PRNG (mulberry32)
let seed = 20261121;
const rnd = (): number => {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Sydney',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'Asia/Tokyo',
  'Europe/Berlin',
  'America/Santiago',
  'Australia/Lord_Howe',
];
const SEC = ['0', '0', '0', '*/15', '0,30', '5-10', '*', '30', '10/20'];
const MIN = ['0', '0', '30', '*/5', '15,45', '0-30/10', '*', '45', '50', '22-7', '*/7'];
const HOUR = ['*', '9', '2', '1', '0', '0-3', '22-2', '*/6', '9-17', '3', '23', '1,2', '2/3'];
const DOM = [
  '*',
  '1',
  '15',
  'L',
  'L-3',
  'LW',
  '15W',
  '1W',
  '31',
  '30W',
  '29',
  '1,15',
  '10-20',
  'L-1W',
  '31W',
  '28-3',
  '*/10',
  '5,L',
  '1,15W',
];
const DOW = [
  '*',
  'MON-FRI',
  '1',
  '7',
  '6L',
  '2#1',
  '5#5',
  'SAT,SUN',
  '2-6/2',
  'L',
  'FRI-MON',
  '1L',
  '3#3',
  'MON#2',
  'TUE',
];
const MON = ['*', '*', '*', '2', '1-6', '*/3', 'JAN,JUL', '11-2', '3', '10', 'MAR-NOV'];
const YEAR = ['', '', '', '', '*', '2026-2028', '2027', '2026/2'];

const exprs = new Set<string>([
  '0 0 12 * * ?',
  '0 15 10 ? * *',
  '0 15 10 * * ? 2027',
  '0 * 14 * * ?',
  '0 0/5 14 * * ?',
  '0 0/5 14,18 * * ?',
  '0 0-5 14 * * ?',
  '0 10,44 14 ? 3 WED',
  '0 15 10 ? * MON-FRI',
  '0 15 10 15 * ?',
  '0 15 10 L * ?',
  '0 15 10 L-2 * ?',
  '0 15 10 ? * 6L',
  '0 15 10 ? * 6L 2026-2028',
  '0 15 10 ? * 6#3',
  '0 0 12 1/5 * ?',
  '0 11 11 11 11 ?',
  '0 0 0 29 2 ?',
  '0 0 0 LW * ?',
  '0 0 0 15W * ?',
  '0 0 0 1W * ?',
  '0 0 0 31W * ?',
  '0 30 2 * * ?',
  '0 30 1 * * ?',
  '0 0 2 * * ?',
  '0 0 3 * * ?',
  '0 45 2 * * ?',
  '0 50 3 * * ?',
  '0 */15 * * * ?',
  '0 0 * * * ?',
  '*/30 * 1-3 * * ?',
  '0 0 0 L-3 * ?',
  '0 0 0 ? * 1L',
  '0 0 0 ? * 2#5',
  '0 0 0 1 1 ? 2027',
  '0 0 0 30 2 ?',
  '0 0 0 ? * L',
  '59 59 23 31 12 ? *',
  '0 0 0 1,L * ?',
  '0 0 8,12 15W * ?',
  '0 0 0 L-10,20 2 ?',
  '0 30 0 * * ?',
  '0 0 0,1 * * ?',
]);
while (exprs.size < 260) {
  const dowSide = rnd() < 0.45;
  exprs.add(
    [pick(SEC), pick(MIN), pick(HOUR), dowSide ? '?' : pick(DOM), pick(MON), dowSide ? pick(DOW) : '?', pick(YEAR)]
      .join(' ')
      .trim(),
  );
}

// afters: a fixed spread plus instants just before DST changes in the northern and southern hemispheres
const AFTERS = [
  Date.UTC(2026, 0, 1),
  Date.UTC(2026, 2, 7, 12),
  Date.UTC(2026, 2, 28, 12),
  Date.UTC(2026, 3, 4, 10),
  Date.UTC(2026, 8, 26, 10),
  Date.UTC(2026, 9, 3, 12),
  Date.UTC(2026, 9, 24, 12),
  Date.UTC(2026, 9, 31, 12),
  Date.UTC(2027, 1, 27, 3, 17, 45, 500),
  Date.UTC(2028, 1, 28, 23, 59, 59),
];
const cases: Array<{ expr: string; zone: string; after: number; n: number }> = [];
for (const expr of exprs) {
  const zone = pick(ZONES);
  cases.push({ expr, zone, after: pick(AFTERS), n: 40 });
  cases.push({ expr, zone: pick(ZONES), after: pick(AFTERS), n: 40 });
}
// every hand-written expression in every DST-relevant zone around its transitions
for (const expr of [...exprs].slice(0, 44)) {
  for (const zone of ZONES) {
    cases.push({ expr, zone, after: pick(AFTERS), n: 25 });
  }
}

const input = cases.map((c) => `${c.expr}\t${c.zone}\t${c.after}\t${c.n}`).join('\n') + '\n';
const out = execFileSync('java', ['-cp', join(dir, 'out'), 'Oracle'], { input, maxBuffer: 1 << 28 })
  .toString()
  .trim()
  .split('\n');
const fixtures = cases.map((c, i) => {
  const line = out[i];
  if (line.startsWith('ERR')) {
    return { ...c, error: line.slice(4) };
  }
  const body = line.slice(3);
  return { ...c, fires: body === '' ? [] : body.split(',').map(Number) };
});
writeFileSync(
  join(__dirname, '..', 'fixtures', 'quartz-oracle.json'),
  JSON.stringify(
    {
      generatedBy: `Quartz 2.5.2 CronExpression, Java ${
        execFileSync('java', ['-XshowSettings:properties', '-version'], { stdio: ['ignore', 'pipe', 'pipe'] })
          .toString()
          .match(/java.version = (\S+)/)?.[1] ?? '?'
      }`,
      cases: fixtures,
    },
    null,
    0,
  ),
);
console.log(`wrote ${fixtures.length} cases (${fixtures.filter((f) => 'error' in f).length} rejected by Quartz)`);
