import { run } from '../../apps/cli/src/main';
import { apiClient, useStackAndReceiver } from '../utils/stack';
import { scheduledAtOf, sleep, waitFor } from '../utils/receiver';

const HOUR = 3_600_000;

/**
 * Issue 45: backfill (`POST /jobs/{id}/backfill`, `GET /backfills/{id}`, cancel) against the real
 * dev server, database and a loopback receiver: the occurrences of a past range run again with
 * their nominal `scheduled_at`, succeeded ones skipped, one run per occurrence even beside the live
 * schedule.
 */
describe('backfill', () => {
  /** Requests the receiver holds this long before answering (per path). */
  const holdMs = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;

  const e2e = useStackAndReceiver({
    respond: (request) => {
      const delayMs = holdMs.get(request.url) ?? 0;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => (inFlight -= 1), delayMs);
      return { status: 200, body: 'ok', delayMs };
    },
  });

  async function createJob(name: string, schedule: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name,
      schedule,
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/${name}` } },
      retry: { max_attempts: 1 },
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }

  async function backfillUntil(id: string, statuses: string[], timeoutMs = 90_000) {
    return waitFor(async () => {
      const backfill = (await e2e.api('GET', `/api/v1/backfills/${id}`)).body;
      return statuses.includes(backfill?.status) ? backfill : null;
    }, timeoutMs);
  }

  async function runsOf(jobId: string) {
    const page = await e2e.api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`);
    expect(page.status).toBe(200);
    return page.body.data as Array<{
      id: string;
      scheduled_at: string;
      trigger: string;
      backfill_id?: string;
      status: string;
    }>;
  }

  async function countRows(table: 'backfills' | 'runs') {
    const [row] = await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`);
    return row.n as number;
  }

  /** Midnight UTC, `days` days ago: a past day every occurrence of which is over. */
  const dayStart = (days: number) => {
    const d = new Date(Date.now() - days * 24 * HOUR);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  };

  it('should run 21 of 24 hourly occurrences when 3 already succeeded, with their nominal scheduled_at', async () => {
    const job = await createJob('hourly', { expr: '0 * * * *', timezone: 'Europe/Berlin' });
    const from = dayStart(3);
    const to = from + 24 * HOUR;

    // Three occurrences succeed first (a backfill of the first three hours).
    const early = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
      from: new Date(from).toISOString(),
      to: new Date(from + 3 * HOUR).toISOString(),
      mode: 'parallel',
    });
    expect(early.status).toBe(202);
    expect(early.body.occurrences).toBe(3);
    const earlyDone = await backfillUntil(early.body.backfill_id, ['completed']);
    expect(earlyDone.counts).toMatchObject({ total: 3, started: 3, succeeded: 3 });

    const dry = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      dry_run: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      backfill_id: null,
      dry_run: true,
      occurrences: 24,
      first: new Date(from).toISOString(),
      last: new Date(to - HOUR).toISOString(),
    });

    const accepted = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      mode: 'parallel',
      max_runs: 4,
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      dry_run: false,
      occurrences: 24,
      first: new Date(from).toISOString(),
      last: new Date(to - HOUR).toISOString(),
    });
    expect(accepted.body.backfill_id).toMatch(/^bf_/);
    const done = await backfillUntil(accepted.body.backfill_id, ['completed']);
    expect(done).toMatchObject({
      job_id: job.id,
      mode: 'parallel',
      max_runs: 4,
      skip_succeeded: true,
      first: new Date(from).toISOString(),
      last: new Date(to - HOUR).toISOString(),
      counts: {
        total: 24,
        pending: 0,
        started: 21,
        running: 0,
        succeeded: 21,
        failed: 0,
        skipped_succeeded: 3,
        canceled: 0,
      },
    });

    const runs = (await runsOf(job.id)).filter((run) => run.backfill_id === accepted.body.backfill_id);
    expect(runs).toHaveLength(21);
    expect(runs.every((run) => run.trigger === 'backfill' && run.status === 'succeeded')).toBe(true);
    const expected = Array.from({ length: 21 }, (_, i) => new Date(from + (i + 3) * HOUR).toISOString());
    expect(runs.map((run) => run.scheduled_at).sort()).toEqual(expected);

    // Delivered once per occurrence, each with its nominal time.
    const delivered = e2e.receiver
      .forJob(job.id)
      .map(scheduledAtOf)
      .sort((a, b) => a - b);
    expect(delivered).toEqual(Array.from({ length: 24 }, (_, i) => from + i * HOUR));
    expect(JSON.parse(e2e.receiver.forJob(job.id)[5].body)).toHaveProperty('scheduled_at');

    const audit = await e2e.api('GET', `/api/v1/audit-log?action=job.backfill&target=${job.id}&limit=10`);
    expect(audit.body.data[0].details).toMatchObject({ backfill_id: accepted.body.backfill_id, occurrences: 24 });
  }, 180_000);

  it('should run one at a time in sequential mode, oldest first', async () => {
    const job = await createJob('sequential', { expr: '0 * * * *' });
    holdMs.set('/sequential', 400);
    inFlight = 0;
    maxInFlight = 0;
    // Weeks old: its lag from the occurrence would not fit a run's start_lag_ms (int milliseconds).
    const from = dayStart(40);
    const asked = Date.now();
    const accepted = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
      from: new Date(from).toISOString(),
      to: new Date(from + 4 * HOUR).toISOString(),
    });
    expect(accepted.status).toBe(202);
    const done = await backfillUntil(accepted.body.backfill_id, ['completed']);
    expect(done).toMatchObject({ mode: 'sequential', max_runs: 1, counts: { total: 4, succeeded: 4 } });
    expect(maxInFlight).toBe(1);
    expect(e2e.receiver.forJob(job.id).map(scheduledAtOf)).toEqual([0, 1, 2, 3].map((i) => from + i * HOUR));
    // Planned for when the backfill opened them: lag and SLA are measured from then.
    const runs = (await e2e.api('GET', `/api/v1/jobs/${job.id}/runs?limit=10`)).body.data as Array<{
      planned_at: string;
      start_lag_ms: number | null;
    }>;
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      expect(Date.parse(run.planned_at)).toBeGreaterThanOrEqual(asked - 1_000);
      expect(run.start_lag_ms).not.toBeNull();
    }
  }, 120_000);

  it('should make one run of an occurrence the live schedule reaches at the same instant', async () => {
    const job = await createJob('racing', { expr: 'every 2 seconds' });
    const created = Date.now();
    for (let round = 0; round < 3; round++) {
      const next = Date.parse((await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body.next_run_at);
      await sleep(Math.max(0, next - Date.now()));
      // At the occurrence's instant: the backfill covers it and everything before it.
      const accepted = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
        from: new Date(created - 1_000).toISOString(),
        to: new Date(next + 1).toISOString(),
        mode: 'parallel',
      });
      expect(accepted.status).toBe(202);
      expect(accepted.body.last).toBe(new Date(next).toISOString());
      await backfillUntil(accepted.body.backfill_id, ['completed']);
    }
    // Every occurrence, the raced ones included, has one run and one delivery.
    const runs = await runsOf(job.id);
    const perOccurrence = new Map<string, number>();
    for (const run of runs) {
      perOccurrence.set(run.scheduled_at, (perOccurrence.get(run.scheduled_at) ?? 0) + 1);
    }
    expect([...perOccurrence.values()].every((n) => n === 1)).toBe(true);
    await sleep(1_000);
    const delivered = e2e.receiver.forJob(job.id).map(scheduledAtOf);
    expect(new Set(delivered).size).toBe(delivered.length);
    await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);
  }, 120_000);

  it('should write nothing on a dry run', async () => {
    const job = await createJob('dry', { expr: '*/15 * * * *', timezone: 'America/New_York' });
    const [backfills, runs] = [await countRows('backfills'), await countRows('runs')];
    const from = dayStart(2);
    const dry = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
      from: new Date(from).toISOString(),
      to: new Date(from + 2 * HOUR).toISOString(),
      dry_run: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ backfill_id: null, dry_run: true, occurrences: 8 });
    expect([await countRows('backfills'), await countRows('runs')]).toEqual([backfills, runs]);
    expect(e2e.receiver.forJob(job.id)).toHaveLength(0);
  });

  it('should count and start a backfill from the command line (svc backfill), by id or key', async () => {
    const job = await createJob('cli', { expr: '0 */6 * * *' }, { key: 'backfill.cli' });
    const from = dayStart(4);
    const svc = async (argv: string[]) => {
      let out = '';
      let err = '';
      const code = await run(argv, {
        out: (t) => (out += t),
        err: (t) => (err += t),
        env: { SVC_API_URL: `${e2e.stack.baseUrl}/api/v1`, SVC_API_KEY: e2e.stack.apiKey },
        cwd: process.cwd(),
      });
      return { code, out, err };
    };
    const range = ['--from', new Date(from).toISOString(), '--to', new Date(from + 24 * HOUR).toISOString()];
    const dry = await svc(['backfill', 'backfill.cli', ...range, '--dry-run']);
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out).toContain('4 occurrence(s)');
    expect(dry.out).toContain('dry run');
    const started = await svc(['backfill', job.id, ...range, '--mode', 'parallel']);
    expect(started.code).toBe(0);
    const id = /backfill (bf_\w+) accepted/.exec(started.out)?.[1];
    expect(id).toBeDefined();
    expect((await backfillUntil(id!, ['completed'])).counts).toMatchObject({ total: 4, succeeded: 4 });
    const refused = await svc(['backfill', job.id, '--from', range[3], '--to', range[1]]);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('to:');
  }, 120_000);

  it('should refuse bad input with 400 naming the field, and write nothing', async () => {
    const job = await createJob('bad-input', { expr: '0 * * * *' });
    const before = [await countRows('backfills'), await countRows('runs')];
    const from = dayStart(10);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ from: new Date(from).toISOString(), to: new Date(from).toISOString() }, 'to'],
      [{ from: new Date(from + HOUR).toISOString(), to: new Date(from).toISOString() }, 'to'],
      // Two years of hourly occurrences: past the cap of 10 000.
      [{ from: new Date(from - 730 * 24 * HOUR).toISOString(), to: new Date(from).toISOString() }, 'to'],
      [{ from: new Date(from).toISOString(), to: new Date(from + HOUR).toISOString(), mode: 'sideways' }, 'mode'],
      [{ from: new Date(from).toISOString(), to: new Date(from + HOUR).toISOString(), max_runs: 0 }, 'max_runs'],
      [{ from: 'yesterday', to: new Date(from + HOUR).toISOString() }, 'from'],
      [{ to: new Date(from + HOUR).toISOString() }, 'from'],
      [
        {
          from: new Date(from).toISOString(),
          to: new Date(from + HOUR).toISOString(),
          overrides: { headers: { 'X-Token': '{{secret.MISSING}}' } },
        },
        'overrides.headers.X-Token',
      ],
    ];
    for (const [body, field] of cases) {
      const answer = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, body);
      expect({ field, status: answer.status, code: answer.body?.error?.code }).toEqual({
        field,
        status: 400,
        code: 'validation_failed',
      });
      expect(Object.keys(answer.body.error.fields)).toContain(field);
    }
    const cap = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, cases[2][0]);
    expect(cap.body.error.fields.to).toContain('10000');
    const unknown = await e2e.api('POST', '/api/v1/jobs/job_01HZZZZZZZZZZZZZZZZZZZZZZZ/backfill', cases[0][0]);
    expect(unknown.status).toBe(404);
    expect([await countRows('backfills'), await countRows('runs')]).toEqual(before);
  });

  it('should cancel what has not started, and keep a backfill to its workspace', async () => {
    const job = await createJob('cancel', { expr: '0 * * * *' });
    holdMs.set('/cancel', 1_500);
    const from = dayStart(7);
    const accepted = await e2e.api('POST', `/api/v1/jobs/${job.id}/backfill`, {
      from: new Date(from).toISOString(),
      to: new Date(from + 12 * HOUR).toISOString(),
    });
    expect(accepted.status).toBe(202);
    const id = accepted.body.backfill_id as string;
    await waitFor(() => e2e.receiver.forJob(job.id).length > 0);

    const other = await e2e.stack.newWorkspaceKey('backfill-other');
    const otherApi = apiClient(e2e.stack.baseUrl, other.apiKey);
    expect((await otherApi('GET', `/api/v1/backfills/${id}`)).status).toBe(404);
    expect((await otherApi('POST', `/api/v1/backfills/${id}/cancel`)).status).toBe(404);
    expect(
      (
        await otherApi('POST', `/api/v1/jobs/${job.id}/backfill`, {
          from: new Date(from).toISOString(),
          to: new Date(from + HOUR).toISOString(),
        })
      ).status,
    ).toBe(404);

    const cancelled = await e2e.api('POST', `/api/v1/backfills/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.cancel_requested_at).not.toBeNull();
    const ended = await backfillUntil(id, ['cancelled']);
    expect(ended.counts.canceled).toBeGreaterThan(0);
    expect(ended.counts.started + ended.counts.canceled).toBe(12);
    // What had started ends on its own; nothing more starts.
    await sleep(3_000);
    const settled = (await e2e.api('GET', `/api/v1/backfills/${id}`)).body;
    expect(settled.counts.started).toBe(ended.counts.started);
    expect(e2e.receiver.forJob(job.id).length).toBe(ended.counts.started);
    expect((await e2e.api('POST', `/api/v1/backfills/${id}/cancel`)).status).toBe(409);
  }, 120_000);
});
