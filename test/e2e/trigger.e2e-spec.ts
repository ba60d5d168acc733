import { useStackAndReceiver } from '../utils/stack';
import { waitFor } from '../utils/receiver';

/** `POST /jobs/{id}/trigger` writes the run before answering (issue #7: read-your-writes). */
describe('manual trigger', () => {
  const e2e = useStackAndReceiver({ worker: false });

  it('should answer GET /runs/{run_id} at once, even before a worker picks the run up', async () => {
    const { stack, receiver, api } = e2e;
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'manual',
        schedule: { expr: 'every day at 3am' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/manual` } },
      })
    ).body;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const triggered = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
      expect(triggered.status).toBe(202);
      const run = await api('GET', `/api/v1/runs/${triggered.body.run_id}`);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ id: triggered.body.run_id, trigger: 'manual', status: 'running' });
      expect(run.body.started_at).toBeNull();
      ids.push(triggered.body.run_id);
    }
    const listed = (await api('GET', `/api/v1/runs?job_id=${job.id}`)).body.data.map((r: { id: string }) => r.id);
    expect(listed.sort()).toEqual([...ids].sort());

    await stack.startWorker();
    for (const id of ids) {
      const done = await waitFor(async () => {
        const run = (await api('GET', `/api/v1/runs/${id}`)).body;
        return run.status === 'succeeded' ? run : null;
      }, 30_000);
      expect(done.attempts).toHaveLength(1);
    }
    expect(receiver.forJob(job.id)).toHaveLength(5);
  });
});
