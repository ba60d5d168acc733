import { apiClient, startStack, type Stack } from '../utils/stack';
import { scheduledAtOf, waitFor, WebhookReceiver } from '../utils/receiver';

interface RunRow {
  id: string;
  scheduled_at: string;
  status: string;
  skip_reason?: string;
  skip_note?: string;
}

/**
 * Skipping one upcoming occurrence (issue 45): its run is recorded `skipped` with the note and
 * nothing is delivered, also when the run was already opened ahead of its instant; undoing a skip
 * restores the occurrence; bad input is a 400 naming `at` or `note` and writes nothing.
 */
describe('skip one occurrence', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    // A long lead, so a run exists well before its instant (prepared ahead).
    stack = await startStack({ config: { scheduler: { prepare_ahead: '8s' } } });
    receiver = await WebhookReceiver.start();
    api = apiClient(stack.baseUrl, stack.apiKey);
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  async function createJob(name: string, expr: string): Promise<{ id: string; next_runs: string[] }> {
    const created = await api('POST', '/api/v1/jobs', {
      name,
      schedule: { expr },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/${name}` } },
      timeout: '5s',
    });
    expect(created.status).toBe(201);
    return (await api('GET', `/api/v1/jobs/${created.body.id}`)).body;
  }

  const runsOf = async (jobId: string) =>
    (await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`)).body.data as RunRow[];
  const runAt = async (jobId: string, at: string) => (await runsOf(jobId)).find((r) => r.scheduled_at === at);
  const skipPath = (jobId: string, at: string) => `/api/v1/jobs/${jobId}/occurrences/${at}/skip`;

  it('should record a skipped run with the note and deliver nothing; an undone skip fires', async () => {
    const job = await createJob('every-3s', 'every 3 seconds');
    // Far enough ahead that neither run is opened yet when the skips are written.
    const [skipped, restored] = job.next_runs.slice(3, 5);

    const skip = await api('POST', skipPath(job.id, skipped), { note: 'migration night' });
    expect(skip.status).toBe(200);
    expect(skip.body).toMatchObject({ at: skipped, note: 'migration night' });
    expect((await api('POST', skipPath(job.id, restored), { note: 'maybe' })).status).toBe(200);
    expect((await api('DELETE', skipPath(job.id, restored))).status).toBe(204);
    // Undone once: a second undo finds nothing.
    expect((await api('DELETE', skipPath(job.id, restored))).status).toBe(404);

    const shown = (await api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(shown.skipped_occurrences).toEqual([expect.objectContaining({ at: skipped, note: 'migration night' })]);
    expect(shown.version).toBe(1);

    await waitFor(() => receiver.forJob(job.id).some((r) => scheduledAtOf(r) > Date.parse(restored)), 40_000);
    const run = await waitFor(async () => {
      const found = await runAt(job.id, skipped);
      return found && found.status !== 'running' ? found : null;
    });
    expect(run).toMatchObject({ status: 'skipped', skip_reason: 'occurrence_skipped', skip_note: 'migration night' });
    const delivered = receiver.forJob(job.id).map(scheduledAtOf);
    expect(delivered).not.toContain(Date.parse(skipped));
    expect(delivered).toContain(Date.parse(restored));
    expect((await runAt(job.id, restored))?.status).toBe('succeeded');

    const detail = (await api('GET', `/api/v1/runs/${run.id}`)).body;
    expect(detail).toMatchObject({ skip_reason: 'occurrence_skipped', skip_note: 'migration night', attempts: [] });
    const audit = (await api('GET', `/api/v1/audit-log?target=${job.id}`)).body.data as Array<{ action: string }>;
    expect(audit.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['job.skip_occurrence', 'job.unskip_occurrence']),
    );
    await api('POST', `/api/v1/jobs/${job.id}/pause`);
  });

  it('should skip an occurrence whose run is already opened ahead of its instant', async () => {
    const job = await createJob('every-20s', 'every 20 seconds');
    // The run of the next occurrence is opened up to 8 s before it (prepare_ahead).
    const opened = await waitFor(
      async () => (await runsOf(job.id)).find((r) => r.status === 'running' && Date.parse(r.scheduled_at) > Date.now() + 1_000),
      30_000,
    );
    expect((await api('POST', skipPath(job.id, opened.scheduled_at), { note: 'holiday' })).status).toBe(200);

    const run = await waitFor(async () => {
      const found = await runAt(job.id, opened.scheduled_at);
      return found && found.status !== 'running' ? found : null;
    });
    expect(run).toMatchObject({ id: opened.id, status: 'skipped', skip_reason: 'occurrence_skipped', skip_note: 'holiday' });
    expect(receiver.forJob(job.id).map(scheduledAtOf)).not.toContain(Date.parse(opened.scheduled_at));
    await api('POST', `/api/v1/jobs/${job.id}/pause`);
  });

  it('should refuse what is not an upcoming occurrence with 400 naming the field, writing nothing', async () => {
    const job = await createJob('daily', 'every day at 09:00');
    const next = job.next_runs[0];
    const off = new Date(Date.parse(next) + 60_000).toISOString();

    const notOccurrence = await api('POST', skipPath(job.id, off), { note: 'x' });
    expect(notOccurrence.status).toBe(400);
    expect(notOccurrence.body.error.fields.at).toContain(job.next_runs[1]);
    const past = await api('POST', skipPath(job.id, '2020-01-01T09:00:00.000Z'), {});
    expect(past.status).toBe(400);
    expect(past.body.error.fields.at).toMatch(/passed/);
    const malformed = await api('POST', skipPath(job.id, 'tomorrow'), {});
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.fields).toHaveProperty('at');
    const longNote = await api('POST', skipPath(job.id, next), { note: 'x'.repeat(501) });
    expect(longNote.status).toBe(400);
    expect(longNote.body.error.fields).toHaveProperty('note');
    expect((await api('POST', skipPath('job_01ARZ3NDEKTSV4RRFFQ69G5FAV', next), {})).status).toBe(404);
    expect((await api('DELETE', skipPath(job.id, next))).status).toBe(404);

    const shown = (await api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(shown.skipped_occurrences).toEqual([]);

    // A skip without a note is allowed; its note is empty.
    const bare = await api('POST', skipPath(job.id, next));
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ at: next, note: '' });
  });
});
