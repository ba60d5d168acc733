import { createServer } from 'node:net';
import { scheduledAtOf, sleep, waitFor, WebhookReceiver, type ReceivedRequest } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Destination limits (issue 46; docs/delivery.md → Destination limits) against the real dev server
 * and loopback receivers that hold each request: 50 jobs aligned on one instant never put more
 * than `max_in_flight` requests in flight at their receiver and all deliver without spending a
 * retry; a 429 with `Retry-After` under `on_429: pause_destination` holds the other jobs' attempts
 * too; a named destination (`sink.config.destination`) counts jobs of different hosts together;
 * the resource's CRUD and its bad input.
 */

/** Workers read a workspace's limited destinations at most this long ago (DESTINATION_CACHE_TTL_MS). */
const WORKER_CACHE_MS = 5_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Counts the requests a receiver holds at once (from arrival to answer). */
function holding(receivers: WebhookReceiver[], holdMs: number, answer?: (request: ReceivedRequest) => boolean) {
  const state = { now: 0, most: 0 };
  for (const receiver of receivers) {
    receiver.respondWith((request) => {
      if (answer?.(request) === false) {
        return { status: 200, body: 'ok' };
      }
      state.now += 1;
      state.most = Math.max(state.most, state.now);
      return {
        status: 200,
        body: 'ok',
        until: sleep(holdMs).then(() => {
          state.now -= 1;
        }),
      };
    });
  }
  return state;
}

function seriesValue(text: string, name: string, labels: Record<string, string>): number | null {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${wanted}}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

describe('destination limits (issue 46)', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    stack = await startStack({ config: { metrics: { worker_port: metricsPort, temporal_sdk_port: 0 } } });
    api = apiClient(stack.baseUrl, stack.apiKey);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const hostOf = (receiver: WebhookReceiver) => new URL(receiver.url).host;

  it('keeps 50 jobs aligned on one instant to max_in_flight 3 at the receiver, and all deliver without spending a retry', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const state = holding([receiver], 300);
      const destination = hostOf(receiver);
      const put = await api('PUT', `/api/v1/destinations/${destination}`, { max_in_flight: 3 });
      expect(put.status).toBe(201);
      expect(put.body).toMatchObject({ destination, max_in_flight: 3, per_minute: null, on_429: null, in_flight: 0 });

      // One instant at least 20 s ahead (creating 50 jobs and the workers' cached lookup fit before it).
      const instant = new Date(Math.ceil((Date.now() + 20_000) / 1_000) * 1_000);
      const jobs: string[] = [];
      for (let i = 0; i < 50; i++) {
        const created = await api('POST', '/api/v1/jobs', {
          name: `aligned ${i}`,
          schedule: { expr: `${instant.getUTCSeconds()} * * * * ?` },
          retry: { max_attempts: 2 },
          sink: { kind: 'webhook', config: { url: `${receiver.url}/aligned` } },
        });
        expect(created.status).toBe(201);
        jobs.push(created.body.id);
      }
      expect(Date.now()).toBeLessThan(instant.getTime() - WORKER_CACHE_MS);

      // While they drain, the API shows runs waiting for the destination, deferred with the reason.
      let sawWaiting = false;
      let sawDeferred = false;
      await waitFor(
        async () => {
          if (!sawWaiting) {
            sawWaiting = (await api('GET', `/api/v1/destinations/${destination}`)).body.waiting > 0;
          }
          if (!sawDeferred) {
            const runs = await api('GET', '/api/v1/runs?status=deferred&limit=200');
            sawDeferred = runs.body.data.some(
              (run: { deferred_reason?: string; deferred_destination?: string }) =>
                run.deferred_reason === 'destination_limit' && run.deferred_destination === destination,
            );
          }
          return jobs.every((id) => receiver.forJob(id).length >= 1);
        },
        120_000,
        100,
      );

      expect(state.most).toBeLessThanOrEqual(3);
      expect(state.most).toBe(3);
      expect(sawWaiting || sawDeferred).toBe(true);
      for (const id of jobs) {
        const deliveries = receiver.forJob(id).filter((r) => scheduledAtOf(r) === instant.getTime());
        expect(deliveries).toHaveLength(1);
        // Never before its instant.
        expect(deliveries[0]!.at).toBeGreaterThanOrEqual(instant.getTime());
      }
      // Each run delivered on its first attempt: the waits spent none of its retries.
      const runs = await waitFor(async () => {
        const page = await api('GET', `/api/v1/runs?status=succeeded&from=${instant.toISOString()}&limit=200`);
        const ours = page.body.data.filter(
          (run: { job_id: string; scheduled_at: string }) =>
            jobs.includes(run.job_id) && run.scheduled_at === instant.toISOString(),
        );
        return ours.length === 50 ? ours : null;
      }, 60_000);
      expect(runs.every((run: { attempts: number }) => run.attempts === 1)).toBe(true);
      // Only now: deleting a job cancels its run while the answer is still on its way back.
      await Promise.all(jobs.map((id) => api('DELETE', `/api/v1/jobs/${id}`)));

      // /metrics shows the destination (in flight back to 0) and counts the waits.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(seriesValue(metrics, 'svc_destination_in_flight', { destination })).toBe(0);
      expect(seriesValue(metrics, 'svc_destination_held_until_seconds', { destination })).toBe(0);
      expect(seriesValue(metrics, 'svc_destination_waits_total', { reason: 'destination_limit' })).toBeGreaterThan(0);
      const after = (await api('GET', `/api/v1/destinations/${destination}`)).body;
      expect(after).toMatchObject({ in_flight: 0, waiting: 0, held_until: null });
    } finally {
      await receiver.stop();
    }
  }, 180_000);

  it('holds every job’s attempts to the destination after a 429 with Retry-After under on_429: pause_destination', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const destination = hostOf(receiver);
      const retryAfterS = 5;
      let limited: number | null = null;
      receiver.respondWith((request) => {
        if (request.url.startsWith('/first') && limited === null) {
          limited = Date.now();
          return { status: 429, headers: { 'Retry-After': String(retryAfterS) }, body: 'slow down' };
        }
        return { status: 200, body: 'ok' };
      });
      expect(
        (await api('PUT', `/api/v1/destinations/${destination}`, { max_in_flight: 10, on_429: 'pause_destination' }))
          .status,
      ).toBe(201);
      const job = async (path: string) => {
        const created = await api('POST', '/api/v1/jobs', {
          name: `held ${path}`,
          schedule: { expr: '0 0 0 1 1 ?' },
          retry: { max_attempts: 3, initial_interval: '1s', max_interval: '1m' },
          sink: { kind: 'webhook', config: { url: `${receiver.url}${path}` } },
        });
        expect(created.status).toBe(201);
        return created.body.id as string;
      };
      const first = await job('/first');
      const others = [await job('/other-a'), await job('/other-b')];
      await sleep(WORKER_CACHE_MS + 1_000);

      expect((await api('POST', `/api/v1/jobs/${first}/trigger`)).status).toBe(202);
      await waitFor(() => limited !== null, 30_000, 50);
      // The others are triggered inside the hold: they wait for it, deferred, spending no attempt.
      const triggered = await Promise.all(others.map((id) => api('POST', `/api/v1/jobs/${id}/trigger`)));
      const held = await waitFor(async () => {
        const d = (await api('GET', `/api/v1/destinations/${destination}`)).body;
        return d.held_until ? d : null;
      }, 10_000);
      const heldUntil = Date.parse(held.held_until);
      expect(heldUntil).toBeGreaterThanOrEqual(limited! + retryAfterS * 1_000 - 1_000);
      const waiting = await waitFor(async () => {
        const run = (await api('GET', `/api/v1/runs/${triggered[0]!.body.run_id}`)).body;
        return run.status === 'deferred' && run.deferred_reason === 'destination_held' ? run : null;
      }, 10_000);
      expect(waiting.deferred_destination).toBe(destination);
      expect(waiting.attempts).toHaveLength(0);

      await waitFor(() => others.every((id) => receiver.forJob(id).length === 1), 60_000);
      for (const id of others) {
        // Not one request of another job reached the destination before the hold ended.
        expect(receiver.forJob(id)[0]!.at).toBeGreaterThanOrEqual(heldUntil - 50);
      }
      for (const response of triggered) {
        const run = await waitFor(async () => {
          const r = (await api('GET', `/api/v1/runs/${response.body.run_id}`)).body;
          return r.status === 'succeeded' ? r : null;
        }, 20_000);
        expect(run.attempts).toHaveLength(1);
      }
      // The job that got the 429 retried after it (its own Retry-After) and succeeded on its second attempt.
      await waitFor(() => receiver.forJob(first).length === 2, 30_000);
      expect(receiver.forJob(first)[1]!.at).toBeGreaterThanOrEqual(heldUntil - 50);
      await Promise.all([first, ...others].map((id) => api('DELETE', `/api/v1/jobs/${id}`)));
    } finally {
      await receiver.stop();
    }
  }, 120_000);

  it('counts jobs of different hosts together under a destination their sinks name', async () => {
    const receivers = [await WebhookReceiver.start(), await WebhookReceiver.start()];
    try {
      const state = holding(receivers, 300);
      expect((await api('PUT', '/api/v1/destinations/billing-api', { max_in_flight: 1 })).status).toBe(201);
      const jobs: string[] = [];
      for (let i = 0; i < 6; i++) {
        const created = await api('POST', '/api/v1/jobs', {
          name: `named ${i}`,
          schedule: { expr: '0 0 0 1 1 ?' },
          sink: {
            kind: 'webhook',
            config: { url: `${receivers[i % 2]!.url}/named`, destination: 'billing-api' },
          },
        });
        expect(created.status).toBe(201);
        expect(created.body.sink.config.destination).toBe('billing-api');
        jobs.push(created.body.id);
      }
      await sleep(WORKER_CACHE_MS + 1_000);
      await Promise.all(jobs.map((id) => api('POST', `/api/v1/jobs/${id}/trigger`)));
      await waitFor(() => jobs.every((id) => receivers.some((r) => r.forJob(id).length === 1)), 60_000);
      expect(state.most).toBe(1);
      await Promise.all(jobs.map((id) => api('DELETE', `/api/v1/jobs/${id}`)));
    } finally {
      await Promise.all(receivers.map((r) => r.stop()));
    }
  }, 90_000);

  it('sets, replaces, lists and removes limits, and refuses bad input with 400 naming the field', async () => {
    const dest = 'hooks.example.com:443';
    const created = await api('PUT', `/api/v1/destinations/${dest}`, { max_in_flight: 5, per_minute: 100 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      destination: dest,
      max_in_flight: 5,
      per_minute: 100,
      on_429: null,
      in_flight: 0,
      waiting: 0,
      held_until: null,
      starts_last_minute: 0,
    });
    const replaced = await api('PUT', `/api/v1/destinations/${dest}`, { per_minute: 10, on_429: 'pause_destination' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ max_in_flight: null, per_minute: 10, on_429: 'pause_destination' });
    expect((await api('GET', `/api/v1/destinations/${dest}`)).body.per_minute).toBe(10);
    expect(
      (await api('GET', '/api/v1/destinations')).body.data.map((d: { destination: string }) => d.destination),
    ).toContain(dest);

    const bad: Array<[string, unknown, string]> = [
      [dest, { max_in_flight: 0 }, 'max_in_flight'],
      [dest, { max_in_flight: -3 }, 'max_in_flight'],
      [dest, { per_minute: 0 }, 'per_minute'],
      [dest, { per_minute: -1 }, 'per_minute'],
      [dest, { max_in_flight: 1.5 }, 'max_in_flight'],
      [dest, { on_429: 'retry' }, 'on_429'],
      [dest, {}, 'max_in_flight'],
      [dest, { max_in_flight: null, per_minute: null }, 'max_in_flight'],
      [dest, { max_in_flight: 2, surprise: true }, 'surprise'],
      ['Hooks.Example.com:443', { max_in_flight: 2 }, 'destination'],
      ['hooks.example.com:99999', { max_in_flight: 2 }, 'destination'],
    ];
    for (const [name, body, field] of bad) {
      const answer = await api('PUT', `/api/v1/destinations/${encodeURIComponent(name)}`, body);
      expect([name, body, answer.status]).toEqual([name, body, 400]);
      expect(answer.body.error.code).toBe('validation_failed');
      expect(Object.keys(answer.body.error.fields ?? {})).toContain(field);
    }
    // Nothing changed by the refused writes.
    expect((await api('GET', `/api/v1/destinations/${dest}`)).body).toMatchObject({
      max_in_flight: null,
      per_minute: 10,
    });

    // A sink's destination name is checked too.
    const badSink = await api('POST', '/api/v1/jobs', {
      name: 'bad destination',
      schedule: { expr: 'every hour' },
      sink: { kind: 'webhook', config: { url: 'https://hooks.example.com/x', destination: 'Not A Name' } },
    });
    expect(badSink.status).toBe(400);
    expect(Object.keys(badSink.body.error.fields)).toContain('sink.config.destination');

    expect((await api('DELETE', `/api/v1/destinations/${dest}`)).status).toBe(204);
    expect((await api('DELETE', `/api/v1/destinations/${dest}`)).status).toBe(404);
    expect((await api('GET', `/api/v1/destinations/${dest}`)).status).toBe(404);
    expect((await api('GET', '/api/v1/destinations/Not%20A%20Host')).status).toBe(404);
    const audit = await api('GET', '/api/v1/audit-log?action=destination.update');
    expect(audit.body.data.some((entry: { target: string }) => entry.target === dest)).toBe(true);
  });
});
