/** The bench's output: Markdown tables to paste into docs/benchmarks.md, then one JSON line. */
import type { BurstResult, MirrorAccount, SideResult } from './analysis';
import { totalActions, type SideActions } from './actions';
import type { NoopCeiling } from './native-side';
import type { Mode, SinkMode } from './options';
import type { LatencySummary } from './util';

export interface LoadReport {
  date: string;
  runId: string;
  mode: Mode;
  /** The service jobs' sink kind. */
  sink: SinkMode;
  aligned: boolean;
  /** `max_in_flight` set on the receiver's destination for the service side; 0: no limit. */
  destinationLimit: number;
  /** `--instant`'s lead in seconds (each side's jobs fire once, at one instant), or null. */
  instantLeadS: number | null;
  jobs: number;
  durationS: number;
  warmupS: number;
  intervalS: number;
  /** `os.loadavg()` (1, 5, 15 min) before and after the run. */
  loadAverage: { before: number[]; after: number[] };
  sides: SideResult[];
  /** service ÷ native, when both sides ran. */
  ratios: { deliveriesPerS: number | null; lagP50: number | null } | null;
  mirror: MirrorAccount | null;
  serviceCreateMs: LatencySummary | null;
  serviceDeleteMs: LatencySummary | null;
  nativeCreateMs: LatencySummary | null;
  noop: NoopCeiling | null;
  /** Billable Temporal actions per side (sequential mode with TEMPORAL_METRICS_URL). */
  actions: SideActions[];
}

const fmt = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined ? '-' : value.toFixed(digits);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(3, h.length, ...rows.map((r) => r[c]!.length)));
  // First column left-aligned (labels), the others right-aligned (numbers).
  const pad = (v: string, c: number) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!));
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (c === 0 ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The delivery counts of a side or a burst (a side has all a burst's counts): expected, received, lost, dup, lag p50. */
function countCells(r: Omit<BurstResult, 'at'>): string[] {
  return [String(r.expected), String(r.received), String(r.lost), String(r.duplicates), fmt(r.lagMs.p50)];
}

function sidesTable(sides: SideResult[]): string {
  const header = ['side', 'N', 'expected', 'received', 'lost', 'dup', 'lag p50', 'p90', 'p99', 'max ms', 'deliv/s'];
  const rows = sides.map((s) => [
    s.side,
    String(s.jobs),
    ...countCells(s),
    fmt(s.lagMs.p90),
    fmt(s.lagMs.p99),
    fmt(s.lagMs.max),
    `${fmt(s.deliveriesPerS, 2)} / ${fmt(s.offeredPerS, 2)}`,
  ]);
  return `${table(header, rows)}\n(deliv/s: delivered / offered, over ${fmt(sides[0]?.windowS)} s of window)`;
}

/** One row per side and scheduled instant: the bursts of an aligned run. */
function burstsTable(sides: SideResult[]): string {
  const header = ['side', 'instant', 'expected', 'received', 'lost', 'dup', 'lag p50', 'p99', 'max ms'];
  const rows = sides.flatMap((s) =>
    s.bursts.map((b) => [s.side, b.at.slice(11, 19), ...countCells(b), fmt(b.lagMs.p99), fmt(b.lagMs.max)]),
  );
  return table(header, rows);
}

function cpuLine(sides: SideResult[], mode: Mode): string | null {
  const busy = sides.filter((s) => s.cpuBusy !== null);
  if (busy.length === 0) {
    return null;
  }
  const label = mode === 'sequential' || sides.length === 1 ? 'each side alone' : 'both sides at once';
  const rss = sides.find((s) => s.workerRssPeakMiB !== null);
  const rssNote = rss ? `; service worker peak RSS during its window ${fmt(rss.workerRssPeakMiB, 1)} MiB` : '';
  const byProcess = busy
    .filter((s) => s.cpuByProcess !== null)
    .map(
      (s) =>
        `\n  ${s.side} by process: ${Object.entries(s.cpuByProcess!)
          .sort(([, a], [, b]) => b - a)
          .map(([group, share]) => `${group} ${fmt(share * 100, 1)}%`)
          .join(', ')}`,
    )
    .join('');
  return `machine CPU busy over window + drain (/proc/stat, ${label}): ${busy
    .map((s) => `${s.side} ${fmt(s.cpuBusy! * 100, 1)}%`)
    .join(', ')}${rssNote}${byProcess}`;
}

function mirrorLine(m: MirrorAccount): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none';
  return (
    `service mirror: ${m.expected} expected, ${m.delivered} delivered, skipped: ${list(m.skipped)}, ` +
    `other: ${list(m.other)}, collapsed by misfire policy: ${m.collapsed}, no run: ${m.missing} -> unaccounted ${m.unaccounted}; duplicate runs ${m.duplicateRuns}; ` +
    `recorded start_lag_ms p50 ${fmt(m.recordedLagMs.p50)} p99 ${fmt(m.recordedLagMs.p99)}`
  );
}

const latencyLine = (label: string, l: LatencySummary | null): string | null =>
  l ? `${label}: p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms (${l.count} requests, 8 concurrent)` : null;

/** Per side: actions per created job, per delivered occurrence, and the steady window by type. */
function actionsTable(actions: SideActions[]): string | null {
  if (actions.length === 0) {
    return null;
  }
  const rows = actions.map((a) => [
    a.side,
    fmt(a.perCreatedJob, 2),
    String(a.delivered),
    fmt(totalActions(a.steady)),
    fmt(a.perOccurrence, 2),
    Object.entries(a.steady)
      .sort((x, y) => y[1] - x[1])
      .map(([type, n]) => `${type} ${a.delivered > 0 ? (n / a.delivered).toFixed(2) : n}`)
      .join(', '),
  ]);
  const svc = actions.find((a) => a.side === 'svc')?.perOccurrence;
  const native = actions.find((a) => a.side === 'native')?.perOccurrence;
  const ratioLine =
    svc && native ? `\nbillable actions per occurrence, service / native: ${(svc / native).toFixed(2)}x` : '';
  return (
    "billable Temporal actions (the server's `action` counter; per occurrence = window and drain ÷ what arrived then):\n" +
    table(['side', 'per job created', 'delivered', 'actions', 'per occurrence', 'per occurrence by type'], rows) +
    ratioLine
  );
}

/**
 * One instant's goals (issue 49): the service's start-lag p99 against native's, and against the
 * best a scheduler that starts each workflow at fire time can do here, N ÷ the no-op ceiling.
 */
function instantLine(report: LoadReport): string | null {
  if (report.instantLeadS === null) {
    return null;
  }
  const p99 = (side: string) => report.sides.find((s) => s.side === side)?.lagMs.p99 ?? null;
  const [svc, native] = [p99('svc'), p99('native')];
  const parts = [`one instant: lag p99 service ${fmt(svc, 0)} ms, native ${fmt(native, 0)} ms`];
  if (svc !== null && native) {
    parts.push(`service / native ${(svc / native).toFixed(3)}x`);
  }
  if (report.noop && report.noop.perSecond > 0 && svc !== null) {
    const boundMs = (report.jobs / report.noop.perSecond) * 1000;
    parts.push(
      `fire-time bound N ÷ ceiling ${fmt(boundMs / 1000, 1)} s, service p99 ${(svc / boundMs).toFixed(3)}x of it`,
    );
  }
  return parts.join('; ');
}

export function printReport(report: LoadReport): void {
  const lines = [
    `load bench ${report.date} run ${report.runId}: ${report.jobs} per side, every ${report.intervalS} s, ` +
      `${report.durationS} s${report.warmupS > 0 ? ` after ${report.warmupS} s of warm-up` : ''}, ${report.mode}, service sink ${report.sink}${report.aligned ? ', aligned (all in second 0 of each minute)' : ''}${report.destinationLimit > 0 ? `, destination limit ${report.destinationLimit} in flight` : ''}${report.instantLeadS !== null ? `, one instant per side ${report.instantLeadS} s after its creation began` : ''}; load average ${report.loadAverage.before.map((n) => n.toFixed(2)).join(' ')} ` +
      `before, ${report.loadAverage.after.map((n) => n.toFixed(2)).join(' ')} after`,
    '',
    sidesTable(report.sides),
    '',
    report.aligned || report.instantLeadS !== null ? burstsTable(report.sides) : null,
    report.aligned || report.instantLeadS !== null ? '' : null,
    cpuLine(report.sides, report.mode),
    report.ratios
      ? `service / native: deliveries/s ${fmt(report.ratios.deliveriesPerS, 2)}, lag p50 ${fmt(report.ratios.lagP50, 2)}x`
      : null,
    report.mirror ? mirrorLine(report.mirror) : null,
    latencyLine('job create (POST /api/v1/jobs)', report.serviceCreateMs),
    latencyLine('job delete (DELETE /api/v1/jobs/{id})', report.serviceDeleteMs),
    latencyLine('native schedule create', report.nativeCreateMs),
    report.noop
      ? `no-op workflow ceiling: ${report.noop.workflows} workflows, ${report.noop.concurrency} concurrent, ` +
        `${fmt(report.noop.perSecond, 1)} completed/s`
      : null,
    instantLine(report),
    actionsTable(report.actions),
    '',
    JSON.stringify(report),
  ];
  console.log(lines.filter((line) => line !== null).join('\n'));
}
