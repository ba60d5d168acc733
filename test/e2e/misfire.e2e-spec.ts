import { useStackAndReceiver } from '../utils/stack';
import { scheduledAtOf, sleep, waitFor } from '../utils/receiver';

/**
 * Misfire policies (decisions.md → misfire_policy): occurrences dispatched later than
 * `scheduler.misfire_threshold` (2 s here) after a worker outage collapse into one run
 * (`fire_once`) or one skipped run with `skip_reason = misfire` (`skip`).
 */
describe('misfire policies after a worker outage', () => {
  const e2e = useStackAndReceiver({
    worker: false,
    config: { scheduler: { reconcile_interval: '1h', misfire_threshold: '2s' } },
  });

  function maxGap(times: number[]): number {
    const sorted = [...times].sort((a, b) => a - b);
    return Math.max(...sorted.slice(1).map((t, i) => t - sorted[i]));
  }

  it('should collapse missed occurrences into one run (fire_once) or one skipped run (skip)', async () => {
    const { stack, receiver, api } = e2e;
    const first = await stack.spawnWorker();
    const create = async (name: string, policy: string) =>
      (
        await api('POST', '/api/v1/jobs', {
          name,
          schedule: { expr: 'every 1 second' },
          misfire_policy: policy,
          sink: { kind: 'webhook', config: { url: `${receiver.url}/${name}` } },
        })
      ).body;
    const once = await create('once', 'fire_once');
    const skip = await create('skip', 'skip');
    await waitFor(() => receiver.forJob(once.id).length >= 2 && receiver.forJob(skip.id).length >= 2);

    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // Long enough for the 3 s gap asserted below even if the worker restarts at once: the 2 s
    // threshold, plus one occurrence whose run was opened ahead before the kill. That checks the
    // collapse through the real stack (rows, deliveries); the policies over an outage of hours
    // are temporal/test/job-workflow.time-skipping.int-spec.ts.
    await sleep(6_000);
    await stack.spawnWorker();
    const restartedAt = Date.now();
    const runsOf = async (jobId: string) =>
      (await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`)).body.data as Array<{
        scheduled_at: string;
        status: string;
        skip_reason?: string;
      }>;
    // Wait for occurrences *scheduled* after the restart, so the catch-up plan lies behind us, and
    // for the skipped run's row: its child workflow records it concurrently with the on-time runs'
    // deliveries, so on a busy machine it can land after them.
    const scheduledAfterRestart = (jobId: string) =>
      receiver.forJob(jobId).some((r) => scheduledAtOf(r) > restartedAt + 2_000);
    await waitFor(() => scheduledAfterRestart(once.id) && scheduledAfterRestart(skip.id), 30_000);
    await waitFor(async () => (await runsOf(skip.id)).some((r) => r.status === 'skipped'), 30_000);
    await api('POST', `/api/v1/jobs/${once.id}/pause`);
    await api('POST', `/api/v1/jobs/${skip.id}/pause`);

    const onceRuns = await runsOf(once.id);
    const skipRuns = await runsOf(skip.id);

    // Seconds of the outage older than the threshold produced no run of their own. An occurrence
    // opened on time whose attempt then started late (the restarted worker's backlog) is a misfire
    // too: fire_once skips it in favour of the later one, and records it.
    expect(maxGap(onceRuns.map((r) => Date.parse(r.scheduled_at)))).toBeGreaterThanOrEqual(3_000);
    const onceDelivered = new Set(receiver.forJob(once.id).map(scheduledAtOf));
    for (const run of onceRuns.filter((r) => r.status === 'skipped')) {
      expect(run.skip_reason).toBe('misfire');
      expect(onceDelivered.has(Date.parse(run.scheduled_at))).toBe(false);
    }

    // The outage's catch-up records one skipped run; occurrences whose attempt started late after
    // the restart are skipped the same way. None of them was delivered.
    const skipped = skipRuns.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    const delivered = receiver.forJob(skip.id).map(scheduledAtOf);
    for (const run of skipped) {
      expect(run.skip_reason).toBe('misfire');
      expect(delivered).not.toContain(Date.parse(run.scheduled_at));
    }
    expect(maxGap(delivered)).toBeGreaterThanOrEqual(3_000);
  });
});
