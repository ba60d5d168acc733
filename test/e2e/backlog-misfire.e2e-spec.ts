import { useStackAndReceiver } from '../utils/stack';
import { sleep, waitFor } from '../utils/receiver';

interface RunRow {
  scheduled_at: string;
  status: string;
  skip_reason?: string | null;
  start_lag_ms: number | null;
}

const THRESHOLD_MS = 3_000;

/**
 * Lateness that happens after the job's timer fired (a task backlog, not an outage) is a misfire
 * too (issue #7): with one attempt slot and a receiver that takes 1.5 s, three jobs firing every
 * second fall behind; each job's misfire policy decides what happens to its late occurrences,
 * every occurrence ends as a recorded run, and none is silently dropped.
 */
describe('misfire policies under a delivery backlog', () => {
  const e2e = useStackAndReceiver({
    config: {
      scheduler: { reconcile_interval: '1h', misfire_threshold: `${THRESHOLD_MS}ms` },
      worker: { max_concurrent_activities: 1 },
    },
    respond: () => ({ status: 200, delayMs: 1_500 }),
  });

  it('should skip, collapse or deliver late occurrences by policy and record every one', async () => {
    const { receiver, api } = e2e;
    const create = async (policy: string) =>
      (
        await api('POST', '/api/v1/jobs', {
          name: `backlog ${policy}`,
          schedule: { expr: 'every 1 second' },
          misfire_policy: policy,
          sink: { kind: 'webhook', config: { url: `${receiver.url}/${policy}` } },
        })
      ).body as { id: string };
    const jobs = {
      fire_once: await create('fire_once'),
      skip: await create('skip'),
      fire_all: await create('fire_all'),
    };
    await sleep(9_000);
    for (const job of Object.values(jobs)) {
      await api('POST', `/api/v1/jobs/${job.id}/pause`);
    }
    const runsOf = async (jobId: string) =>
      (await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`)).body.data as RunRow[];
    const settled = async (jobId: string) =>
      (await runsOf(jobId)).every((r) => r.status !== 'running' && r.status !== 'deferred');
    await waitFor(
      async () =>
        (await settled(jobs.fire_once.id)) && (await settled(jobs.skip.id)) && (await settled(jobs.fire_all.id)),
      60_000,
    );

    for (const job of Object.values(jobs)) {
      // Every occurrence between the first and the last has its row: nothing unaccounted.
      const times = (await runsOf(job.id)).map((r) => Date.parse(r.scheduled_at)).sort((a, b) => a - b);
      expect(times.length).toBeGreaterThanOrEqual(6);
      expect(times.slice(1).map((t, i) => t - times[i])).toEqual(times.slice(1).map(() => 1_000));
    }

    const skip = await runsOf(jobs.skip.id);
    const skipSkipped = skip.filter((r) => r.status === 'skipped');
    expect(skipSkipped.length).toBeGreaterThan(0);
    expect(skipSkipped.every((r) => r.skip_reason === 'misfire')).toBe(true);
    // `skip` never delivers a late occurrence.
    for (const run of skip.filter((r) => r.status === 'succeeded')) {
      expect(run.start_lag_ms).toBeLessThanOrEqual(THRESHOLD_MS);
    }

    const once = await runsOf(jobs.fire_once.id);
    const onceSkipped = once.filter((r) => r.status === 'skipped');
    expect(onceSkipped.length).toBeGreaterThan(0);
    expect(onceSkipped.every((r) => r.skip_reason === 'misfire')).toBe(true);
    // Each collapsed occurrence gave way to a later one.
    const latestOnce = Math.max(...once.map((r) => Date.parse(r.scheduled_at)));
    expect(onceSkipped.every((r) => Date.parse(r.scheduled_at) < latestOnce)).toBe(true);

    const all = await runsOf(jobs.fire_all.id);
    expect(all.filter((r) => r.status === 'skipped')).toEqual([]);
    expect(all.every((r) => r.status === 'succeeded')).toBe(true);
    expect(all.some((r) => (r.start_lag_ms ?? 0) > THRESHOLD_MS)).toBe(true);
  }, 120_000);
});
