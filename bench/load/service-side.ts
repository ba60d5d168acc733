/**
 * The service's side of the load bench, through its public API only: N webhook jobs pointing at
 * the receiver, their deletion, and the runs the service mirrored into PostgreSQL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachLimited, log, range, timed } from './util';

const TERMINAL = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

/** Requests in flight while creating and deleting jobs (the issue measures at 8). */
export const API_CONCURRENCY = 8;
const PAGE_LIMIT = 200;

export interface ScheduleBody {
  expr: string;
  kind: 'quartz' | 'cron';
}

/**
 * A Quartz expression firing at every multiple of `intervalS` since the epoch, the phase the native
 * Schedules use (interval spec, offset 0). The natural `every 10 seconds` would phase from the
 * moment each job is saved (docs/schedules.md), so the two sides would fire at different seconds.
 */
export function serviceSchedule(intervalS: number, aligned = false, instantMs: number | null = null): ScheduleBody {
  if (instantMs !== null) {
    // Daily at the instant's minute (UTC, the job's default zone): every job due in one second.
    return { expr: dailyCronAt(instantMs), kind: 'cron' };
  }
  if (aligned) {
    // What people write: every minute, at second 0 (the burst of issue 25).
    return { expr: '* * * * *', kind: 'cron' };
  }
  if (intervalS < 60 && 60 % intervalS === 0) {
    return { expr: `*/${intervalS} * * * * ?`, kind: 'quartz' };
  }
  const minutes = intervalS / 60;
  if (Number.isInteger(minutes) && minutes < 60 && 60 % minutes === 0) {
    return { expr: `0 */${minutes} * * * ?`, kind: 'quartz' };
  }
  throw new Error(`interval ${intervalS}s: use a divisor of 60 s, or whole minutes dividing 60`);
}

/** Cron `M H * * *` for the UTC minute of `instantMs` (a whole minute). */
export function dailyCronAt(instantMs: number): string {
  const at = new Date(instantMs);
  return `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
}

/** The fields of a run the bench reads. */
export interface RunRow {
  job_id: string;
  scheduled_at: string;
  status: string;
  skip_reason?: string | null;
  start_lag_ms: number | null;
}

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** A thin client of `/api/v1` with a Bearer key; every unexpected status is an error. */
export class ServiceApi {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async call<T>(method: string, path: string, body?: unknown, expected = [200]): Promise<T> {
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!expected.includes(res.status)) {
      throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Every item of a paged list endpoint (`path` already has its query string). */
  async listAll<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: Page<T> = await this.call<Page<T>>('GET', `${path}&limit=${PAGE_LIMIT}${suffix}`);
      items.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return items;
  }
}

export interface ServiceJobsOptions {
  api: ServiceApi;
  count: number;
  intervalS: number;
  receiverUrl: string;
  /** Tag on every job of this run: what cleanup deletes by. */
  runTag: string;
  aligned?: boolean;
  /** The sink of job `i` delivering to `url`; default a webhook to it. */
  sink?: (i: number, url: string) => { kind: string; config: Record<string, unknown> };
}

function webhookSink(_: number, url: string) {
  return { kind: 'webhook', config: { url } };
}

/** The N jobs of one run: created, later deleted (by tag, so none is left behind), latencies kept. */
export class ServiceJobs {
  /** Job id by index; filled as creates answer. */
  readonly jobIds: string[] = [];
  readonly createMs: number[] = [];
  readonly deleteMs: number[] = [];

  constructor(private readonly options: ServiceJobsOptions) {}

  /** Creates the jobs; with `instantMs`, daily jobs that all fire at that one instant. */
  async create(signal: AbortSignal, instantMs: number | null = null): Promise<void> {
    const { api, count, intervalS, receiverUrl, runTag } = this.options;
    const schedule = serviceSchedule(intervalS, this.options.aligned, instantMs);
    await forEachLimited(
      range(count),
      API_CONCURRENCY,
      async (i) => {
        const body = {
          name: `bench-${i}`,
          tags: [runTag],
          schedule,
          sink: (this.options.sink ?? webhookSink)(i, `${receiverUrl}/svc/${i}`),
        };
        const { value, ms } = await timed(() => api.call<{ id: string }>('POST', '/jobs', body, [201]));
        this.jobIds[i] = value.id;
        this.createMs.push(ms);
      },
      signal,
    );
  }

  /** Deletes every job tagged with this run's tag, including any whose create answer was lost. */
  async remove(): Promise<void> {
    const { api, runTag } = this.options;
    const jobs = await api.listAll<{ id: string }>(`/jobs?tag=${encodeURIComponent(runTag)}`);
    await forEachLimited(jobs, API_CONCURRENCY, async (job) => {
      const { ms } = await timed(() => api.call('DELETE', `/jobs/${job.id}`, undefined, [204, 404]));
      this.deleteMs.push(ms);
    });
  }

  /** Scheduled runs the service recorded with `scheduled_at` in [fromMs, toMs), per job. */
  /**
   * Polls until every job has a run at or after `lastSlotMs` and no run from `fromMs` to
   * `lastSlotMs` is still open, or until `timeoutMs`; returns the runs from `fromMs` to now (past
   * the window included: what a collapsed occurrence was folded into).
   */
  async settledRuns(fromMs: number, lastSlotMs: number, timeoutMs: number, signal: AbortSignal): Promise<RunRow[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const runs = await this.scheduledRuns(fromMs, Date.now() + 1000);
      const latest = new Map<string, number>();
      for (const run of runs) {
        latest.set(run.job_id, Math.max(latest.get(run.job_id) ?? -Infinity, Date.parse(run.scheduled_at)));
      }
      const behind = this.jobIds.filter((id) => (latest.get(id) ?? -Infinity) < lastSlotMs).length;
      const open = runs.filter((run) => Date.parse(run.scheduled_at) <= lastSlotMs && !TERMINAL.has(run.status)).length;
      if ((behind === 0 && open === 0) || Date.now() >= deadline) {
        return runs;
      }
      log(`settling: ${behind} jobs have not reached the window's end, ${open} runs still open`);
      await sleep(5000, undefined, { signal });
    }
  }

  async scheduledRuns(fromMs: number, toMs: number): Promise<RunRow[]> {
    const { api } = this.options;
    const from = new Date(fromMs).toISOString();
    const to = new Date(toMs).toISOString();
    const runs: RunRow[] = [];
    await forEachLimited(this.jobIds, 4, async (jobId) => {
      runs.push(...(await api.listAll<RunRow>(`/runs?job_id=${jobId}&trigger=schedule&from=${from}&to=${to}`)));
    });
    return runs;
  }
}
