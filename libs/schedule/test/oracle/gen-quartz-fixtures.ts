/**
 * Regenerates test/fixtures/quartz-oracle.json from the REAL Quartz CronExpression (v2.5.2).
 * Not a test. Needs a JDK (javac/java) and Quartz's CronExpression.java, which is standalone:
 *   git show v2.5.2:quartz/src/main/java/org/quartz/CronExpression.java > /tmp/qz/org/quartz/CronExpression.java
 *   node -r @swc-node/register libs/schedule/test/oracle/gen-quartz-fixtures.ts /tmp/qz
 * The harness sets the zone with TimeZone.getTimeZone and calls getTimeAfter repeatedly.
 *
 * Cases come in groups (quartz.spec.ts reports agreement per group, docs/schedules.md records it):
 * - `random`: random field combinations in DST zones around their changes;
 * - `overlap`: `after` inside both occurrences of every repeated hour (fall-back) in 2026-2027 of
 *   several zones, 30-minute shifts included, for expressions driven by the second, minute and
 *   hour fields; cases of one expression and zone are in ascending `after` order, so the test can
 *   replay them through one ScheduleValidationCache as the preview endpoint would;
 * - `far`: rare dates decades ahead (29 February with `#`/`L`, fixed years up to Quartz's limit
 *   of the JVM's current year + 100 and beyond it);
 * - `lenient`: expressions Quartz accepts but decisions.md rejects (its answer is recorded, the
 *   test expects a teaching error instead).
 * The JVM's year is recorded as `clockYear`: Quartz's MAX_YEAR is clockYear + 100, so the test
 * compiles with a reference in that year.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IANAZone } from 'luxon';

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

type Group = 'random' | 'overlap' | 'far' | 'lenient' | 'steps';
interface Case {
  group: Group;
  expr: string;
  zone: string;
  after: number;
  n: number;
  /** `lenient`: the UTF-8 byte where our error must start. */
  at?: number;
}
const cases: Case[] = [];

// ---------------------------------------------------------------- random
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

/** decisions.md rejects `W` with several hours (Quartz's own evaluation is inconsistent there). */
const rejectedByDecision = (expr: string): boolean => {
  const f = expr.split(' ');
  return f[3].includes('W') && !/^\d+$/.test(f[2]);
};

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
  '0 0 8 15W * ?',
  '0 0 0 L-10,20 2 ?',
  '0 30 0 * * ?',
  '0 0 0,1 * * ?',
]);
while (exprs.size < 260) {
  const dowSide = rnd() < 0.45;
  const expr = [
    pick(SEC),
    pick(MIN),
    pick(HOUR),
    dowSide ? '?' : pick(DOM),
    pick(MON),
    dowSide ? pick(DOW) : '?',
    pick(YEAR),
  ]
    .join(' ')
    .trim();
  if (!rejectedByDecision(expr)) {
    exprs.add(expr);
  }
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
for (const expr of exprs) {
  const zone = pick(ZONES);
  cases.push({ group: 'random', expr, zone, after: pick(AFTERS), n: 40 });
  cases.push({ group: 'random', expr, zone: pick(ZONES), after: pick(AFTERS), n: 40 });
}
// every hand-written expression in every DST-relevant zone around its transitions
for (const expr of [...exprs].slice(0, 43)) {
  for (const zone of ZONES) {
    cases.push({ group: 'random', expr, zone, after: pick(AFTERS), n: 25 });
  }
}

// ---------------------------------------------------------------- overlap
const OVERLAP_ZONES = [
  'America/New_York',
  'Europe/London',
  'Europe/Berlin',
  'Australia/Sydney',
  'Australia/Lord_Howe', // 30-minute shift
  'Pacific/Chatham', // at 03:45
  'America/Santiago', // at 00:00 (midnight repeats)
  'America/Havana', // at 01:00
];
const OVERLAP_EXPRS = [
  // second field drives
  '*/10 * * * * ?',
  '30 * * * * ?',
  '0-5 * 1 * * ?',
  '*/15 * 0-3 * * ?',
  // minute field drives
  '0 */5 * * * ?',
  '0 15,45 * * * ?',
  '0 0/20 1-2 * * ?',
  '0 * * * * ?',
  '0 10-50/20 * ? * SUN',
  // hour field drives
  '0 0 * * * ?',
  '0 30 1 * * ?',
  '0 0 1 * * ?',
  '0 0 2 * * ?',
  '0 45 */2 * * ?',
  '0 30 0,1,2,3 * * ?',
  '0 0 0 * * ?',
];
/** Fall-back transitions (instant and length) of a zone between two instants. */
function fallBacks(zone: string, from: number, to: number): Array<{ at: number; shift: number }> {
  const z = IANAZone.create(zone);
  const out: Array<{ at: number; shift: number }> = [];
  for (let t = from; t < to; t += 3_600_000) {
    const a = z.offset(t);
    const b = z.offset(t + 3_600_000);
    if (b < a) {
      let at = t;
      while (z.offset(at) === a) {
        at += 60_000;
      }
      out.push({ at, shift: (a - b) * 60_000 });
    }
  }
  return out;
}
const overlapCases: Case[] = [];
for (const zone of OVERLAP_ZONES) {
  for (const { at, shift } of fallBacks(zone, Date.UTC(2026, 0, 1), Date.UTC(2028, 0, 1))) {
    // the first occurrence of the repeated wall times is [at - shift, at), the second [at, at + shift)
    const offsets = [0, 1000, 60_000, shift / 4 + 500, shift / 2 + 1, shift - 1000, shift - 1];
    for (const expr of OVERLAP_EXPRS) {
      for (const first of [true, false]) {
        for (const o of offsets) {
          overlapCases.push({ group: 'overlap', expr, zone, after: at - (first ? shift : 0) + o, n: 6 });
        }
      }
      overlapCases.push({ group: 'overlap', expr, zone, after: at - shift - 3_600_000, n: 6 }); // before both
    }
  }
}
overlapCases.sort((a, b) => (a.expr + a.zone).localeCompare(b.expr + b.zone) || a.after - b.after);
cases.push(...overlapCases);

// ---------------------------------------------------------------- far
// Afters stay in the JVM's year so that Quartz's MAX_YEAR (clock year + 100) equals ours (the
// reference year + 100) on both paths of the test.
const clockYear = new Date().getUTCFullYear();
const FAR_ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'America/Santiago',
];
const FAR_AFTERS = [
  Date.UTC(clockYear, 0, 1),
  Date.UTC(clockYear, 5, 15, 12, 34, 56),
  Date.UTC(clockYear, 10, 22, 8),
  Date.UTC(clockYear, 11, 31, 23, 59, 59),
];
const farExprs = new Set<string>([
  '0 0 0 ? 2 1#5',
  '0 0 0 ? 2 2#5',
  '0 0 12 ? 2 3#5',
  '0 30 9 ? 2 4#5',
  '0 0 0 ? 2 5#5',
  '0 0 0 ? 2 6#5',
  '59 59 23 ? 2 7#5',
  '0 0 0 ? 2 MON#5',
  '0 0 0 ? 2 SUN#5 2100-2126',
  '0 0 0 ? 2 1#5 2117-2126',
  '0 0 12 29 2 ? 2096',
  '0 0 12 29 2 ? 2100',
  '0 0 12 29 2 ? 2104',
  '0 0 12 29 2 ? 2124',
  '0 0 12 29 2 ? 2097-2103',
  '0 0 0 29 2 ? 2099,2104',
  '0 0 0 29 2 ? */7',
  '0 0 0 29 2 ? 2050/25',
  '0 0 0 1 1 ? 2099',
  '0 0 0 1 1 ? 2125',
  `0 0 0 1 1 ? ${clockYear + 100}`,
  `0 0 0 1 1 ? ${clockYear + 101}`,
  `59 59 23 31 12 ? ${clockYear + 100}`,
  `0 0 0 ? 2 2L ${clockYear + 100}`,
  '0 0 0 L 2 ? 2100',
  '0 0 0 LW 2 ? 2100',
  '0 0 0 15W 2 ? 2124',
  '0 0 0 ? * 6#5 2126',
  '0 15 10 ? 2 6L 2099',
  '0 0 0 31 4,6,9,11 ?',
  '0 0 0 30 2 ?',
  '0 0 0 31W 2 ?',
]);
const FAR_YEARS = [
  '',
  '',
  '2090',
  '2099',
  '2100',
  '2104',
  '2118-2122',
  '2125',
  '2126',
  '2127',
  '2130-2140',
  '2096/4',
  '2050-2150/7',
];
while (farExprs.size < 110) {
  const dowSide = rnd() < 0.5;
  const dom = pick(['29', 'L', '28-29', 'LW', '29W', '1', '15W', 'L-1']);
  const dow = pick(['2#5', '6#5', '1#5', '7#4', '1L', '5L', 'MON#1', '3#5']);
  const expr = [
    pick(['0', '30']),
    pick(['0', '15']),
    pick(['0', '9', '23']),
    dowSide ? '?' : dom,
    pick(['2', '2', '2,3', '*', '1-3']),
    dowSide ? dow : '?',
    pick(FAR_YEARS),
  ]
    .join(' ')
    .trim();
  farExprs.add(expr);
}
for (const expr of farExprs) {
  for (const zone of FAR_ZONES) {
    cases.push({ group: 'far', expr, zone, after: pick(FAR_AFTERS), n: 5 });
  }
}

// ---------------------------------------------------------------- lenient
// What Quartz accepts (or reads leniently) and decisions.md rejects, each with the byte where the
// error must point. Quartz's own answer is recorded for the record.
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const lenient: Array<{ expr: string; at: number }> = [];
const fieldsWith = (i: number, v: string, base: string[]): { expr: string; at: number } => {
  const f = [...base];
  f[i] = v;
  return { expr: f.join(' '), at: bytes(f.slice(0, i).join(' ') + (i > 0 ? ' ' : '')) };
};
const DOM_BASE = ['0', '0', '12', '1', '*', '?'];
const DOW_BASE = ['0', '0', '12', '?', '*', 'MON'];
// 3. names with letters that Unicode case mapping turns into ASCII (Java: 'ſ' → 'S', 'ı' → 'I')
const unicodeName = (name: string): string | null => {
  const chars = [...name.toLowerCase()];
  const spots = chars.map((c, i) => (c === 's' || c === 'i' ? i : -1)).filter((i) => i >= 0);
  if (spots.length === 0) {
    return null;
  }
  const i = pick(spots);
  chars[i] = chars[i] === 's' ? '\u017f' : '\u0131';
  return chars.map((c, k) => (k !== i && rnd() < 0.5 ? c.toUpperCase() : c)).join('');
};
for (const name of ['SUN', 'SAT', 'FRI', 'MON-FRI', 'SAT,SUN', 'SUN-TUE', 'TUE,FRI', 'THU-SAT']) {
  for (let k = 0; k < 6; k++) {
    const parts = name.split(/([,-])/);
    const j = pick(parts.map((p, i) => (/[SI]/.test(p) ? i : -1)).filter((i) => i >= 0));
    const u = unicodeName(parts[j]) as string;
    const v = [...parts.slice(0, j), u, ...parts.slice(j + 1)].join('');
    const { expr, at } = fieldsWith(5, v, DOW_BASE);
    const inField =
      bytes(parts.slice(0, j).join('')) +
      bytes(
        u.slice(
          0,
          [...u].findIndex((c) => c > '\u007f'),
        ),
      );
    lenient.push({ expr, at: at + inField });
  }
}
for (const name of ['SEP', 'SEP-DEC', 'JAN,SEP', 'MAR-SEP']) {
  for (let k = 0; k < 4; k++) {
    const parts = name.split(/([,-])/);
    const j = parts.indexOf('SEP');
    const u = unicodeName('SEP') as string;
    const v = [...parts.slice(0, j), u, ...parts.slice(j + 1)].join('');
    const { expr, at } = fieldsWith(4, v, DOM_BASE);
    lenient.push({ expr, at: at + bytes(parts.slice(0, j).join('')) + (u[0] === '\u017f' ? 0 : bytes(u.slice(0, 2))) });
  }
}
// 4. L-0 (at the item), W with several hours (at the W item)
for (const v of ['L-0', 'l-0', 'L-0W', 'L-00', '1,L-0']) {
  const { expr, at } = fieldsWith(3, v, DOM_BASE);
  lenient.push({ expr, at: at + (v.startsWith('1,') ? 2 : 0) });
}
for (const w of ['15W', '1W', 'LW', 'L-2W', '31W', '1,15W', 'lw']) {
  for (const hours of ['9,17', '0-23', '*', '*/6', '22-2', '8-18/2', '1,2']) {
    for (const [sec, min] of [
      ['0', '0'],
      ['0', '30'],
      ['0', '*/15'],
    ]) {
      const f = [sec, min, hours, w, '*', '?'];
      const at = bytes(f.slice(0, 3).join(' ') + ' ') + (w.startsWith('1,') ? 2 : 0);
      lenient.push({ expr: f.join(' '), at });
    }
  }
}
// 5. separators other than spaces and tabs, between fields or around them
for (const sep of ['\n', '\r', '\r\n', '\v', '\f', '\u00a0', '\u2003', '\u2028', '\ufeff']) {
  for (const [i, base] of [
    [1, DOM_BASE],
    [3, DOW_BASE],
    [5, DOM_BASE],
  ] as Array<[number, string[]]>) {
    const expr = base.slice(0, i).join(' ') + sep + base.slice(i).join(' ');
    lenient.push({ expr, at: bytes(base.slice(0, i).join(' ')) });
  }
  lenient.push({ expr: DOM_BASE.join(' ') + sep, at: bytes(DOM_BASE.join(' ')) });
  lenient.push({ expr: sep + DOW_BASE.join(' '), at: 0 });
}
for (const { expr, at } of lenient) {
  cases.push({ group: 'lenient', expr, zone: pick(ZONES), after: pick(AFTERS), n: 3, at });
}

// ---------------------------------------------------------------- steps
// The largest step of every field, on both sides of Quartz's bound, in the three step forms:
// `*\/s` and `a/s` (Quartz's checkIncrementRange: 59 59 23 31 12 7, none for years) and `a-b/s`
// (not checked). Steps past a Java int, or so large that Quartz's own loop counter would overflow
// (it then loops on), are left to the unit tests.
const INT_MAX = 2147483647;
const STEP_FIELDS: Array<[number, string[], number | null, string, string]> = [
  // field, base, Quartz's bound for `*\/s` and `a/s`, a start, a range
  [0, DOM_BASE, 59, '7', '5-50'],
  [1, DOM_BASE, 59, '7', '5-50'],
  [2, DOM_BASE, 23, '3', '2-20'],
  [3, DOM_BASE, 31, '5', '3-28'],
  [4, DOM_BASE, 12, '2', '2-11'],
  [5, DOW_BASE, 7, '2', '2-6'],
  [6, [...DOM_BASE, '*'], null, '2030', '2030-2120'],
];
for (const [field, base, max, start, range] of STEP_FIELDS) {
  const first = Number(start);
  const rangeFirst = Number(range.split('-')[0]);
  const near = max === null ? [1, 2, 7, 50, 96, 97, 100, 1000] : [1, max - 1, max, max + 1, max + 2];
  const steps: Array<[string, number]> = [];
  for (const s of near) {
    steps.push([`*/${s}`, s], [`${start}/${s}`, s], [`${range}/${s}`, s]);
  }
  for (const [form, from] of [
    ['*', field === 6 ? 1970 : field >= 3 ? 1 : 0],
    [start, first],
    [range, rangeFirst],
  ] as Array<[string, number]>) {
    steps.push([`${form}/1000`, 1000], [`${form}/${INT_MAX - from}`, INT_MAX - from], [`${form}/${INT_MAX + 1}`, 0]);
  }
  const cycle = [...ZONES];
  let k = 0;
  for (const [v] of steps) {
    const f = [...base];
    f[field] = v;
    const zone = cycle[k++ % cycle.length]!;
    cases.push({ group: 'steps', expr: f.join(' '), zone, after: AFTERS[k % AFTERS.length]!, n: 5 });
  }
}

// ---------------------------------------------------------------- output
// the harness reads one case a line: line breaks inside an expression travel escaped
const escaped = (e: string): string => e.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const input = cases.map((c) => `${escaped(c.expr)}\t${c.zone}\t${c.after}\t${c.n}`).join('\n') + '\n';
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
// the JVM prints its settings on stderr
const javaVersion =
  spawnSync('java', ['-XshowSettings:properties', '-version'])
    .stderr.toString()
    .match(/java.version = (\S+)/)?.[1] ?? '?';
writeFileSync(
  join(__dirname, '..', 'fixtures', 'quartz-oracle.json'),
  JSON.stringify(
    {
      generatedBy: `Quartz 2.5.2 CronExpression, Java ${javaVersion}`,
      clockYear,
      cases: fixtures,
    },
    null,
    0,
  ),
);
const count = (g: Group): number => fixtures.filter((f) => f.group === g).length;
console.log(
  `wrote ${fixtures.length} cases (${fixtures.filter((f) => 'error' in f).length} rejected by Quartz): ` +
    (['random', 'overlap', 'far', 'lenient', 'steps'] as Group[]).map((g) => `${g} ${count(g)}`).join(', '),
);
