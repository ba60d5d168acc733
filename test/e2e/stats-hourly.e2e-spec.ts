import { newId } from '@svc/workflow-contract/ids';
import { apiClient, createIdleJobs, useStack } from '../utils/stack';

const HOUR = 3_600_000;
const STATUSES = ['succeeded', 'failed', 'skipped', 'running', 'deferred', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];
type Bucket = { hour: string; succeeded: number; failed: number; skipped: number; other: number };

/**
 * `GET /api/v1/stats/jobs/hourly` (issue #11): the dashboard's 24 h sparklines, counted by
 * PostgreSQL per job and hour instead of paging through at most 1 000 runs. Runs are inserted
 * straight into the database (more than 1 000 for one job, as a job firing every minute has), and
 * the expected buckets are counted here from the same rows, over the hours the API answered.
 */
describe('GET /api/v1/stats/jobs/hourly', () => {
  const e2e = useStack({ worker: false });
  let other: { apiKey: string; workspaceId: string };
  const jobs: Record<string, string> = {};
  /** Every run inserted: [workspace, job, scheduled_at, status]. */
  const runs: Array<[string, string, Date, Status]> = [];

  async function insertRuns(rows: Array<[string, string, Date, Status]>) {
    await e2e.stack.dataSource.query(
      `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status)
       SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), 1, unnest($4::timestamptz[]), 'schedule', unnest($5::text[])`,
      [
        rows.map(() => newId('run')),
        rows.map(([ws]) => ws),
        rows.map(([, job]) => job),
        rows.map(([, , at]) => at.toISOString()),
        rows.map(([, , , status]) => status),
      ],
    );
    runs.push(...rows);
  }

  /** What the API should answer for `job` of `workspace` over the hours it answered. */
  function expectedBuckets(workspace: string, job: string, hours: string[]): Bucket[] {
    return hours.map((hour) => {
      const start = Date.parse(hour);
      const inHour = runs.filter(
        ([ws, id, at]) => ws === workspace && id === job && at.getTime() >= start && at.getTime() < start + HOUR,
      );
      const count = (status: string) => inHour.filter(([, , , s]) => s === status).length;
      return {
        hour,
        succeeded: count('succeeded'),
        failed: count('failed'),
        skipped: count('skipped'),
        other: inHour.length - count('succeeded') - count('failed') - count('skipped'),
      };
    });
  }

  beforeAll(async () => {
    other = await e2e.stack.newWorkspaceKey('hourly-other');
    Object.assign(jobs, await createIdleJobs(e2e.api, ['busy', 'quiet', 'idle']));
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
    const busy: Array<[string, string, Date, Status]> = [];
    // `busy`: one run a minute in hours 1–22 ago except 5–8 ago (zero-filled), statuses in turn;
    // all inside the window even if the hour turns before the request.
    for (let hoursAgo = 1; hoursAgo <= 22; hoursAgo++) {
      if (hoursAgo >= 5 && hoursAgo <= 8) {
        continue;
      }
      for (let minute = 0; minute < 60; minute++) {
        const status = STATUSES[(hoursAgo * 7 + minute * minute) % STATUSES.length];
        busy.push([e2e.stack.workspaceId, jobs.busy, new Date(hourStart - hoursAgo * HOUR + minute * 60_000), status]);
      }
    }
    // Outside the window: 24 h and 30 h before this hour.
    for (const hoursAgo of [24, 30]) {
      busy.push([e2e.stack.workspaceId, jobs.busy, new Date(hourStart - hoursAgo * HOUR), 'succeeded']);
    }
    expect(busy.length).toBeGreaterThan(1_000);
    await insertRuns(busy);
    await insertRuns([
      [e2e.stack.workspaceId, jobs.quiet, new Date(hourStart - 3 * HOUR + 5_000), 'failed'],
      [e2e.stack.workspaceId, jobs.quiet, new Date(hourStart - 3 * HOUR + 9_000), 'succeeded'],
      [e2e.stack.workspaceId, jobs.quiet, new Date(hourStart - 12 * HOUR), 'cancelled'],
    ]);
    // Another workspace's runs under the same job ids: never counted for this workspace (half a
    // second off the minute: one run per job and instant).
    const foreign: Array<[string, string, Date, Status]> = [];
    for (let i = 0; i < 50; i++) {
      foreign.push([other.workspaceId, jobs.busy, new Date(hourStart - 2 * HOUR + i * 1_000 + 500), 'failed']);
      foreign.push([other.workspaceId, jobs.idle, new Date(hourStart - 6 * HOUR + i * 1_000), 'succeeded']);
    }
    await insertRuns(foreign);
  });

  function hoursOf(body: { data: Array<{ buckets: Bucket[] }> }): string[] {
    const hours = body.data[0].buckets.map((b) => b.hour);
    expect(hours).toHaveLength(24);
    hours.forEach((hour, i) => {
      expect(Date.parse(hour) % HOUR).toBe(0);
      if (i > 0) {
        expect(Date.parse(hour) - Date.parse(hours[i - 1])).toBe(HOUR);
      }
    });
    return hours;
  }

  it('should count every run of the last 24 hours per job, hour and outcome, zero-filled, oldest first', async () => {
    const response = await e2e.api('GET', '/api/v1/stats/jobs/hourly?window=24h');
    expect(response.status).toBe(200);
    const hours = hoursOf(response.body);
    expect(Date.parse(hours[23])).toBeLessThanOrEqual(Date.now());
    expect(Date.now() - Date.parse(hours[23])).toBeLessThan(HOUR);
    // Jobs with runs in the window, by id; `idle` had none in this workspace.
    expect(response.body).toEqual({
      data: [jobs.busy, jobs.quiet]
        .sort()
        .map((job) => ({ job_id: job, buckets: expectedBuckets(e2e.stack.workspaceId, job, hours) })),
    });
    const busy = response.body.data.find((d: { job_id: string }) => d.job_id === jobs.busy).buckets as Bucket[];
    const total = busy.reduce((n, b) => n + b.succeeded + b.failed + b.skipped + b.other, 0);
    expect(total).toBeGreaterThan(1_000);
    expect(busy.filter((b) => b.succeeded + b.failed + b.skipped + b.other === 0).length).toBeGreaterThanOrEqual(4);
  });

  it('should answer the named jobs only, in the order named, repeated or comma-separated, with zeros for a job without runs', async () => {
    for (const q of [
      `job_id=${jobs.idle},${jobs.busy}`,
      `job_id=${jobs.idle}&job_id=${jobs.busy}`,
      `job_id=${jobs.idle}&job_id=${jobs.busy},${jobs.idle}`,
    ]) {
      const response = await e2e.api('GET', `/api/v1/stats/jobs/hourly?${q}`);
      expect(response.status).toBe(200);
      const hours = hoursOf(response.body);
      expect(response.body.data).toEqual([
        { job_id: jobs.idle, buckets: expectedBuckets(e2e.stack.workspaceId, jobs.idle, hours) },
        { job_id: jobs.busy, buckets: expectedBuckets(e2e.stack.workspaceId, jobs.busy, hours) },
      ]);
      expect(
        response.body.data[0].buckets.every((b: Bucket) => b.succeeded + b.failed + b.skipped + b.other === 0),
      ).toBe(true);
    }
  });

  it("should count only the caller's workspace", async () => {
    const response = await apiClient(e2e.stack.baseUrl, other.apiKey)('GET', '/api/v1/stats/jobs/hourly');
    expect(response.status).toBe(200);
    const hours = hoursOf(response.body);
    expect(response.body).toEqual({
      data: [jobs.busy, jobs.idle]
        .sort()
        .map((job) => ({ job_id: job, buckets: expectedBuckets(other.workspaceId, job, hours) })),
    });
    const counted = (response.body.data as Array<{ buckets: Bucket[] }>).flatMap((d) => d.buckets);
    expect(counted.reduce((n, b) => n + b.succeeded + b.failed + b.skipped + b.other, 0)).toBe(100);
  });

  it.each([
    ['an unknown window', 'window=2h', 'window'],
    ['a window in the wrong case', 'window=24H', 'window'],
    ['an empty window', 'window=', 'window'],
    ['a repeated window', 'window=24h&window=24h', 'window'],
    ['a malformed job id', 'job_id=job_123', 'job_id'],
    ['an empty job id list', 'job_id=', 'job_id'],
    ['more than 200 job ids', `job_id=${Array.from({ length: 201 }, () => newId('job')).join(',')}`, 'job_id'],
    ['an unknown parameter', 'since=2030-01-01T00:00:00Z', 'since'],
  ])('should answer 400 validation_failed naming the field for %s', async (_, q, field) => {
    const response = await e2e.api('GET', `/api/v1/stats/jobs/hourly?${q}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(Object.keys(response.body.error.fields)).toEqual([field]);
  });
});
