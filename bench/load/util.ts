/** Small helpers of the load bench: percentiles, a bounded-concurrency loop, timing, CPU. */
import { readdirSync, readFileSync } from 'node:fs';

/** Nearest-rank percentile of an ascending list; `null` for an empty one. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) {
    return null;
  }
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** `value` to `digits` decimals, for readable JSON; `null` stays `null`. */
export function round<T extends number | null>(value: T, digits: number): T {
  return (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits) as T;
}

export interface LatencySummary {
  count: number;
  p50: number | null;
  p99: number | null;
}

export function summarizeLatencies(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: round(percentile(sorted, 0.5), 1), p99: round(percentile(sorted, 0.99), 1) };
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight. After an abort or a failure no new
 * item starts, but the calls in flight are awaited, so whatever they created is known to the
 * caller's cleanup; then the first error (or the abort) is thrown.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  let failure: unknown;
  const lane = async (): Promise<void> => {
    while (next < items.length && failure === undefined && !signal?.aborted) {
      const index = next++;
      try {
        await fn(items[index]!, index);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== undefined) {
    throw failure;
  }
  signal?.throwIfAborted();
}

/** Milliseconds `fn` took (wall clock, monotonic), with its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/** 0, 1, …, n − 1. */
export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

export const log = (message: string): void => {
  process.stderr.write(`[load ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

/** Jiffies of the whole machine from the first line of /proc/stat (Linux). */
export interface CpuSample {
  busy: number;
  total: number;
}

export function sampleCpu(): CpuSample | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const busy = user + nice + system + irq + softirq + steal;
    return { busy, total: busy + idle + iowait };
  } catch {
    return null;
  }
}

/** Share of the machine's CPU time that was busy between two samples (0..1); null off Linux. */
export function busyBetween(from: CpuSample | null, to: CpuSample | null): number | null {
  if (!from || !to || to.total <= from.total) {
    return null;
  }
  return round((to.busy - from.busy) / (to.total - from.total), 3);
}

/** The processes a load run's CPU is split between, told apart by their command lines. */
export type CpuGroup = 'temporal' | 'postgres' | 'svc-worker' | 'svc-api' | 'bench' | 'other';

/** CPU ticks per process group (utime + stime, plus the children they reaped), from /proc. */
export type GroupCpuSample = Map<CpuGroup, number>;

function cpuGroupOf(pid: number, cmdline: string): CpuGroup {
  if (pid === process.pid) {
    // The receiver, and on the native side also the worker of the Schedules' workflows.
    return 'bench';
  }
  if (/dist\/apps\/worker\//.test(cmdline)) {
    return 'svc-worker';
  }
  if (/dist\/apps\/api\//.test(cmdline)) {
    return 'svc-api';
  }
  if (/(^|\/)temporal(\.exe)?\s+server\b/.test(cmdline)) {
    return 'temporal';
  }
  if (/^postgres(:|\s|$)|\/postgres(\s|$)/.test(cmdline)) {
    return 'postgres';
  }
  return 'other';
}

/**
 * Where the machine's CPU goes, per process group: which process carries a side's extra work
 * (issue 25). Processes that ended within the window count only through the parent that reaped
 * them (PostgreSQL's backends through the postmaster). Null off Linux.
 */
export function sampleGroupCpu(): GroupCpuSample | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const sample: GroupCpuSample = new Map();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name in parentheses: state is field 3, utime 14 … cstime 17.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      const group = cpuGroupOf(Number(pid), cmdline);
      sample.set(group, (sample.get(group) ?? 0) + ticks);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return sample;
}

/**
 * Each group's share of the machine's CPU time between two samples (0..1 of all cores, like
 * `busyBetween`), using the machine's total from /proc/stat over the same span.
 */
export function groupSharesBetween(
  from: { groups: GroupCpuSample | null; machine: CpuSample | null },
  to: { groups: GroupCpuSample | null; machine: CpuSample | null },
): Partial<Record<CpuGroup, number>> | null {
  if (!from.groups || !to.groups || !from.machine || !to.machine || to.machine.total <= from.machine.total) {
    return null;
  }
  const span = to.machine.total - from.machine.total;
  const shares: Partial<Record<CpuGroup, number>> = {};
  for (const [group, ticks] of to.groups) {
    shares[group] = round(Math.max(0, ticks - (from.groups.get(group) ?? 0)) / span, 3);
  }
  return shares;
}

/**
 * The largest `svc_worker_process_resident_memory_bytes` the worker's /metrics reported, sampled
 * every 2 s until `untilMs`: its memory while a burst's runs wait prepared. Null without a URL or
 * when no sample could be read.
 */
export async function peakWorkerRss(
  url: string | undefined,
  untilMs: number,
  signal: AbortSignal,
): Promise<number | null> {
  let peak: number | null = null;
  while (url && Date.now() < untilMs && !signal.aborted) {
    try {
      const text = await (await fetch(url)).text();
      const line = text.split('\n').find((l) => l.startsWith('svc_worker_process_resident_memory_bytes '));
      if (line) {
        peak = Math.max(peak ?? 0, Number(line.trim().split(/\s+/).pop()));
      }
    } catch {
      // A missed sample: the next one counts.
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, Math.max(0, untilMs - Date.now()))));
  }
  return peak;
}
