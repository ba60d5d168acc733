import { useStackAndReceiver } from '../utils/stack';
import { scheduledAtOf, sleep, waitFor, type ReceivedRequest } from '../utils/receiver';

/**
 * Spread windows and the run cap (issue 46) against the real dev server and a loopback receiver:
 * jobs aligned on one instant fire spread over their window at stable offsets, the webhook and the
 * run rows carry both the nominal and the planned time, a change of the window neither drops nor
 * doubles an occurrence, and `max_concurrent_runs` bounds `allow`.
 */
describe('spread windows and max_concurrent_runs (issue 46)', () => {
  const e2e = useStackAndReceiver({
    respond: (request) =>
      request.url.startsWith('/slow') ? { status: 200, delayMs: 3_500 } : { status: 200, body: 'ok' },
  });

  type Job = { id: string; start_window: string | null; start_offset_ms: number; max_concurrent_runs: number | null };
  type Run = { id: string; status: string; scheduled_at: string; planned_at: string; skip_reason?: string };

  const plannedAtOf = (request: ReceivedRequest) => Date.parse(request.headers['svc-planned-at'] as string);

  function createJob(body: Record<string, unknown>) {
    return e2e.api('POST', '/api/v1/jobs', {
      name: 'spread',
      schedule: { expr: '*/20 * * * * ?' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/spread` } },
      ...body,
    });
  }

  it('spreads 100 jobs aligned on the same instants over their window, each at its stable offset', async () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 100; i++) {
      const created = await createJob({ name: `spread ${i}`, start_window: '20s' });
      expect(created.status).toBe(201);
      jobs.push(created.body);
    }
    for (const job of jobs) {
      expect(job.start_window).toBe('20s');
      expect(job.start_offset_ms).toBeGreaterThanOrEqual(0);
      expect(job.start_offset_ms).toBeLessThan(20_000);
      // the same offset on every read
      expect((await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body.start_offset_ms).toBe(job.start_offset_ms);
    }
    // The offsets cover the window: every quarter of it holds some of the 100 jobs.
    const quarters = [0, 0, 0, 0];
    for (const job of jobs) {
      quarters[Math.floor(job.start_offset_ms / 5_000)] += 1;
    }
    for (const count of quarters) {
      expect(count).toBeGreaterThanOrEqual(10);
    }

    // Two occurrences of every job (bounded generously: the test machine is shared).
    await waitFor(() => jobs.every((job) => e2e.receiver.forJob(job.id).length >= 2), 150_000, 500);
    await Promise.all(jobs.map((job) => e2e.api('DELETE', `/api/v1/jobs/${job.id}`)));

    const byInstant = new Map<number, number[]>();
    for (const job of jobs) {
      const deliveries = e2e.receiver.forJob(job.id);
      for (const request of deliveries) {
        const nominal = scheduledAtOf(request);
        expect(nominal % 20_000).toBe(0); // the nominal instant stays the schedule's
        const planned = plannedAtOf(request);
        expect(planned - nominal).toBe(job.start_offset_ms); // the same offset on every occurrence
        expect(request.at).toBeGreaterThanOrEqual(planned); // never before its planned time
        const payload = JSON.parse(request.body);
        expect(Date.parse(payload.scheduled_at)).toBe(nominal);
        expect(Date.parse(payload.planned_at)).toBe(planned);
        expect(request.headers['webhook-id']).toBe(payload.run_id);
        byInstant.set(nominal, [...(byInstant.get(nominal) ?? []), request.at - nominal]);
      }
      // one delivery per occurrence
      expect(new Set(deliveries.map(scheduledAtOf)).size).toBe(deliveries.length);
    }
    // An instant every job fired at was delivered spread over the window, not at once.
    const full = [...byInstant.values()].filter((delays) => delays.length === 100);
    expect(full.length).toBeGreaterThanOrEqual(1);
    for (const delays of full) {
      expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(10_000);
    }

    // The run rows carry both times.
    const runs = (await e2e.api('GET', `/api/v1/jobs/${jobs[0].id}/runs`)).body.data as Run[];
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const run of runs) {
      expect(Date.parse(run.planned_at) - Date.parse(run.scheduled_at)).toBe(jobs[0].start_offset_ms);
    }
  }, 240_000);

  it('shows the next occurrences with their planned times', async () => {
    const job = (await createJob({ start_window: '20s' })).body as Job;
    const read = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(read.next_occurrences).toHaveLength(read.next_runs.length);
    read.next_occurrences.forEach((o: { scheduled_at: string; planned_at: string }, i: number) => {
      expect(o.scheduled_at).toBe(read.next_runs[i]);
      expect(Date.parse(o.planned_at) - Date.parse(o.scheduled_at)).toBe(job.start_offset_ms);
    });
    await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
  });

  it('neither drops nor doubles an occurrence whose nominal time passed when its window changes', async () => {
    // A job whose offset leaves time to change it between the nominal and the planned instant.
    let job: Job | null = null;
    for (let i = 0; i < 50 && job === null; i++) {
      const created = (await createJob({ name: `carried ${i}`, start_window: '20s' })).body as Job;
      if (created.start_offset_ms >= 8_000 && created.start_offset_ms <= 16_000) {
        job = created;
      } else {
        await e2e.api('DELETE', `/api/v1/jobs/${created.id}`);
      }
    }
    expect(job).not.toBeNull();
    const { id, start_offset_ms: offset } = job!;
    // Once its workflow delivers (a first occurrence), the next nominal instant: just after it,
    // before its planned time, a new version with a small window.
    const first = await waitFor(() => e2e.receiver.forJob(id)[0], 60_000);
    const nominal = scheduledAtOf(first) + 20_000;
    await sleep(nominal + 2_000 - Date.now());
    const patched = await e2e.api('PATCH', `/api/v1/jobs/${id}`, { start_window: '1s' });
    expect(patched.status).toBe(200);
    expect(Date.now()).toBeLessThan(nominal + offset); // the old planned time had not come yet
    const delivered = await waitFor(() => e2e.receiver.forJob(id).find((r) => scheduledAtOf(r) === nominal), 60_000);
    expect(delivered.at).toBeGreaterThanOrEqual(nominal + 2_000); // planned from the change on
    // The next occurrence fires at the new offset; the carried one was delivered once.
    await waitFor(() => e2e.receiver.forJob(id).some((r) => scheduledAtOf(r) === nominal + 20_000), 60_000);
    await e2e.api('DELETE', `/api/v1/jobs/${id}`);
    expect(e2e.receiver.forJob(id).filter((r) => scheduledAtOf(r) === nominal)).toHaveLength(1);
    const runs = (await e2e.api('GET', `/api/v1/jobs/${id}/runs`)).body.data as Run[];
    expect(runs.filter((r) => Date.parse(r.scheduled_at) === nominal)).toHaveLength(1);
  }, 180_000);

  it('max_concurrent_runs: 2 under allow never has more than 2 requests in flight and records the skipped', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'capped',
      schedule: { expr: 'every 1 second' },
      overlap_policy: 'allow',
      max_concurrent_runs: 2,
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/slow` } },
    });
    expect(created.status).toBe(201);
    expect(created.body.max_concurrent_runs).toBe(2);
    const id = created.body.id as string;
    const runs = await waitFor(async () => {
      const page = (await e2e.api('GET', `/api/v1/jobs/${id}/runs?limit=200`)).body.data as Run[];
      return page.filter((r) => r.status === 'succeeded').length >= 4 ? page : null;
    }, 60_000);
    await e2e.api('DELETE', `/api/v1/jobs/${id}`);
    // Each request is held 3.5 s by the receiver, and a run ends only after its answer: the
    // requests in flight when one arrives are those that arrived less than 3.5 s before it.
    const arrivals = e2e.receiver.forJob(id).map((r) => r.at);
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    let most = 0;
    for (const t of arrivals) {
      most = Math.max(most, arrivals.filter((u) => u <= t && u > t - 3_400).length);
    }
    expect(most).toBe(2);
    const skipped = runs.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(new Set(skipped.map((r) => r.skip_reason))).toEqual(new Set(['max_concurrent_runs']));
  }, 120_000);

  it('refuses a window longer than the interval and caps out of range, naming the field, and writes nothing', async () => {
    const long = await createJob({ schedule: { expr: 'every 1 minute' }, start_window: '2m' });
    expect(long.status).toBe(400);
    expect(long.body.error.fields.start_window).toMatch(/shortest interval/);

    for (const [body, field] of [
      [{ start_window: 'soon' }, 'start_window'],
      [{ start_window: '0s' }, 'start_window'],
      [{ max_concurrent_runs: 0 }, 'max_concurrent_runs'],
      [{ max_concurrent_runs: -1 }, 'max_concurrent_runs'],
      [{ overlap_policy: 'skip', max_concurrent_runs: 3 }, 'max_concurrent_runs'],
    ] as const) {
      const refused = await createJob(body);
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.error.fields)).toContain(field);
    }

    const job = (await createJob({ schedule: { expr: 'every 1 minute' }, start_window: '30s' })).body as Job;
    const patch = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { schedule: { expr: 'every 10 seconds' } });
    expect(patch.status).toBe(400);
    expect(Object.keys(patch.body.error.fields)).toEqual(['start_window']);
    const unchanged = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(unchanged.schedule.expr).toBe('every 1 minute');
    expect(unchanged.version).toBe(1);
    // null resets the window (the job fires at its nominal times again)
    const reset = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { start_window: null });
    expect(reset.body).toMatchObject({ start_window: null, start_offset_ms: 0 });
    await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
  });
});
