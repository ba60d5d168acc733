import { ResponseBodyRetentionTask } from '../../apps/api/src/runs/response-body-retention.task';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Attempt response bodies (issue #9; spec: Attempt.response_body, Limits → Stored response body;
 * decisions.md → Response bodies) through the real worker: at most the first 64 KiB, kept for
 * non-success attempts, for successful ones only with `runs.store_success_bodies`, and cleared
 * `runs.body_retention` after the attempt finished.
 */
describe('attempt response bodies', () => {
  let receiver: WebhookReceiver;
  const BIG = `${'a'.repeat(64 * 1024 - 4)}edge|TAIL-beyond-the-limit`;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.respondWith((request) => {
      if (request.url.startsWith('/big-failure')) {
        return { status: 400, body: BIG };
      }
      return { status: 200, body: 'all good' };
    });
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  async function finishedRun(stack: Stack, path: string) {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const created = await api('POST', '/api/v1/jobs', {
      name: `bodies ${path}`,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}${path}` } },
    });
    const runId: string = (await api('POST', `/api/v1/jobs/${created.body.id}/trigger`)).body.run_id;
    return waitFor(async () => {
      const run = (await api('GET', `/api/v1/runs/${runId}`)).body;
      return ['succeeded', 'failed'].includes(run.status) ? run : null;
    });
  }

  describe('default settings', () => {
    let stack: Stack;

    beforeAll(async () => {
      stack = await startStack();
    });

    afterAll(async () => {
      await stack?.stop();
    });

    it('should store the first 64 KiB of a failed attempt and nothing of a successful one', async () => {
      const failed = await finishedRun(stack, '/big-failure');
      expect(failed.attempts[0]).toMatchObject({ outcome: 'fatal', status_code: 400 });
      const stored: string = failed.attempts[0].response_body;
      // Compared by length and ends, so a failure does not print 64 KiB.
      expect(stored.length).toBe(64 * 1024);
      expect(stored.endsWith('edge')).toBe(true);
      expect(stored === BIG.slice(0, 64 * 1024)).toBe(true);

      const succeeded = await finishedRun(stack, '/ok');
      expect(succeeded.attempts[0]).toMatchObject({ outcome: 'success', status_code: 200, response_body: null });
    });

    it('should clear bodies runs.body_retention (7 days) after the attempt finished, keeping the attempt', async () => {
      const failed = await finishedRun(stack, '/big-failure');
      const task = stack.app.get(ResponseBodyRetentionTask);
      const finishedAt = Date.parse(failed.attempts[0].finished_at);
      const api = apiClient(stack.baseUrl, stack.apiKey);

      // Six days on: still there.
      await task.runOnce(new Date(finishedAt + 6 * 86_400_000));
      expect((await api('GET', `/api/v1/runs/${failed.id}`)).body.attempts[0].response_body).toHaveLength(64 * 1024);

      // Past seven days: gone, while the attempt and its other fields stay.
      expect(await task.runOnce(new Date(finishedAt + 7 * 86_400_000 + 1_000))).toBeGreaterThanOrEqual(1);
      const after = (await api('GET', `/api/v1/runs/${failed.id}`)).body;
      expect(after.attempts[0]).toMatchObject({ outcome: 'fatal', status_code: 400, response_body: null });
      expect(after.attempts[0].request_summary).toBe(failed.attempts[0].request_summary);
    });
  });

  describe('runs.store_success_bodies: true', () => {
    let stack: Stack;

    beforeAll(async () => {
      stack = await startStack({ config: { runs: { store_success_bodies: true } } });
    });

    afterAll(async () => {
      await stack?.stop();
    });

    it('should store the body of a successful attempt too', async () => {
      const succeeded = await finishedRun(stack, '/ok');
      expect(succeeded.attempts[0]).toMatchObject({ outcome: 'success', response_body: 'all good' });
    });
  });
});
