import { useStackAndReceiver } from '../utils/stack';
import { waitFor } from '../utils/receiver';

/**
 * Overlap policies (decisions.md → overlap_policy) against a receiver that takes 2.5 s to answer
 * a job that fires every second.
 */
describe('overlap policies', () => {
  const e2e = useStackAndReceiver({ respond: () => ({ status: 200, delayMs: 2_500 }) });

  type Run = { id: string; status: string; skip_reason?: string; scheduled_at: string; started_at: string | null };

  async function runFor(policy: string, until: (runs: Run[]) => boolean): Promise<{ jobId: string; runs: Run[] }> {
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: `overlap ${policy}`,
        schedule: { expr: 'every 1 second' },
        overlap_policy: policy,
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/${policy}` } },
      })
    ).body;
    const runs = await waitFor(async () => {
      const page = (await e2e.api('GET', `/api/v1/jobs/${job.id}/runs?limit=200`)).body.data as Run[];
      return until(page) ? page : null;
    }, 40_000);
    await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
    return { jobId: job.id, runs };
  }

  function arrivalGaps(jobId: string): number[] {
    const times = e2e.receiver.forJob(jobId).map((r) => r.at);
    return times.slice(1).map((t, i) => t - times[i]);
  }

  it('skip: never delivers while a run is in flight and records the skipped occurrences', async () => {
    const { jobId, runs } = await runFor('skip', (page) => page.filter((r) => r.status === 'succeeded').length >= 2);
    const skipped = runs.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    expect(new Set(skipped.map((r) => r.skip_reason))).toEqual(new Set(['previous_run_in_progress']));
    for (const gap of arrivalGaps(jobId)) {
      expect(gap).toBeGreaterThanOrEqual(2_400);
    }
  });

  it('queue: keeps one waiting occurrence, delivers it after the previous run and skips the rest', async () => {
    const { jobId, runs } = await runFor('queue', (page) => page.filter((r) => r.status === 'succeeded').length >= 3);
    for (const gap of arrivalGaps(jobId)) {
      expect(gap).toBeGreaterThanOrEqual(2_400);
    }
    expect(runs.filter((r) => r.skip_reason === 'previous_run_in_progress').length).toBeGreaterThanOrEqual(1);
    // A queued run (not the job's first) started well after its occurrence: it waited its turn.
    const succeeded = runs
      .filter((r) => r.status === 'succeeded')
      .sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
    const waited = succeeded
      .slice(1)
      .filter((r) => r.started_at && Date.parse(r.started_at) - Date.parse(r.scheduled_at) > 1_500);
    expect(waited.length).toBeGreaterThanOrEqual(1);
  });

  it('cancel_previous: cancels the in-flight run when the next occurrence starts', async () => {
    const { runs } = await runFor(
      'cancel_previous',
      (page) => page.filter((r) => r.status === 'cancelled').length >= 2,
    );
    expect(runs.filter((r) => r.status === 'cancelled').length).toBeGreaterThanOrEqual(2);
  });
});
