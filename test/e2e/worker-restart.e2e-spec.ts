import { useStackAndReceiver } from '../utils/stack';
import { scheduledAtOf, sleep, waitFor } from '../utils/receiver';

/**
 * Durability (issue #2): the worker runs as its own OS process (the built dist/) and is killed
 * with SIGKILL mid-schedule; after a restart every occurrence of the downtime is still delivered,
 * because the timers live in Temporal, not in the worker.
 */
describe('worker crash and restart', () => {
  const e2e = useStackAndReceiver({ worker: false });

  it('should lose no occurrence when the worker process is killed and restarted', async () => {
    const { stack, receiver, api } = e2e;
    const first = await stack.spawnWorker();
    const created = await api('POST', '/api/v1/jobs', {
      name: 'durable',
      schedule: { expr: 'every 2 seconds' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/durable` } },
    });
    expect(created.status).toBe(201);
    const jobId: string = created.body.id;
    await waitFor(() => receiver.forJob(jobId).length >= 2, 20_000);

    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const killedAt = Date.now();
    await sleep(7_000); // three or four occurrences fall due while no worker runs
    const duringDowntime = receiver.forJob(jobId).filter((r) => r.at > killedAt + 500).length;
    expect(duringDowntime).toBe(0);

    await stack.spawnWorker();
    const restartedAt = Date.now();
    // Wait for an occurrence *scheduled* after the restart (not merely delivered after it: on a busy
    // machine the downtime's backlog can still be arriving), so the downtime lies inside the range.
    await waitFor(() => receiver.forJob(jobId).some((r) => scheduledAtOf(r) > restartedAt + 2_000), 30_000);
    await api('POST', `/api/v1/jobs/${jobId}/pause`);

    // Every occurrence from the first to the last delivered one has exactly one run.
    const scheduled = [...new Set(receiver.forJob(jobId).map(scheduledAtOf))].sort((a, b) => a - b);
    const lost: number[] = [];
    for (let t = scheduled[0]; t <= scheduled[scheduled.length - 1]; t += 2_000) {
      if (!scheduled.includes(t)) {
        lost.push(t);
      }
    }
    expect(lost).toEqual([]);
    expect(scheduled.filter((t) => t > killedAt && t < restartedAt).length).toBeGreaterThanOrEqual(3);

    const runs = await waitFor(async () => {
      const page = await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`);
      const all = page.body.data as Array<{ status: string; scheduled_at: string }>;
      return all.every((r) => r.status === 'succeeded') ? all : null;
    }, 30_000);
    const runTimes = runs!.map((r) => Date.parse(r.scheduled_at));
    for (const t of scheduled) {
      expect(runTimes).toContain(t);
    }
    expect(new Set(runTimes).size).toBe(runTimes.length);
  });
});
