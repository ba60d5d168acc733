import { isId } from '@svc/workflow-contract/ids';
import type { SendSinkInput, SinkSender } from '@svc/orchestration';
import { authFor, FakeTemporal, jobsApiOver, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import type { CreateJobDto } from './dto/job-body.dto';
import { SinkTestService } from './sink-test.service';
import { webhookJobBody } from './test/job-body';

/**
 * SinkTestService over the in-memory kit with a recording sender: what a test sends (attempt 0, a
 * fresh run id, the job's signing secrets or a one-time one, `test: true`), the create's own
 * validation of an unsaved body, and that nothing is written.
 */
describe('SinkTestService', () => {
  const auth = authFor();
  let sent: SendSinkInput[];
  const kit = serviceOverKit((db) => {
    sent = [];
    const api = jobsApiOver(db, new FakeTemporal());
    const sender = {
      send: async (input: SendSinkInput) => {
        sent.push(input);
        return {
          outcome: 'success',
          statusCode: 204,
          durationMs: 12.4,
          body: '',
          requestSummary: `POST ${String((input.sink as { config?: { url?: string } }).config?.url ?? '')}`,
          error: null,
        };
      },
    };
    return new SinkTestService(
      db.repositories.jobs,
      db.repositories.transactions,
      api.lifecycle,
      api.settingsFactory,
      api.templates,
      sender as unknown as SinkSender,
    );
  });

  const nothingWritten = () => {
    expect(kit.db.tables.runs.size).toBe(0);
    expect(kit.db.tables.audit).toEqual([]);
    expect([...kit.db.tables.usage.values()]).toEqual([]);
  };

  describe('testJob', () => {
    it("should send the saved job's sink once as a test, signed with the job's secrets, and write nothing", async () => {
      const job = kit.db.addJob('paused');
      const answer = await kit.service.testJob(auth, job.id);
      expect(answer).toEqual({
        outcome: 'success',
        status_code: 204,
        duration_ms: 12,
        response_body: '',
        request_summary: expect.any(String),
        error: null,
      });
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        workspaceId: job.workspaceId,
        job: { id: job.id, name: job.name },
        signingSecrets: job.signingSecrets,
        timeoutMs: job.timeoutMs,
        test: true,
        run: { attempt: 0 },
      });
      expect(isId('run', sent[0].run.id)).toBe(true);
      nothingWritten();
    });

    it("should not find another workspace's job (404) and send nothing", async () => {
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.testJob(auth, theirs.id)).rejects.toMatchObject({
        status: 404,
        body: { code: 'not_found', message: 'Job not found' },
      });
      expect(sent).toEqual([]);
    });
  });

  describe('testConfig', () => {
    const body = (extra: Partial<CreateJobDto> = {}) => webhookJobBody('draft', extra);

    it('should send an unsaved body under a fresh job id with a one-time secret, saving nothing', async () => {
      await kit.service.testConfig(auth, body());
      expect(sent).toHaveLength(1);
      expect(sent[0].job.name).toBe('draft');
      expect(isId('job', sent[0].job.id)).toBe(true);
      expect(sent[0].signingSecrets).toEqual([{ secret: expect.any(String), expires_at: null }]);
      expect(sent[0].test).toBe(true);
      expect(kit.db.tables.jobs.size).toBe(0);
      nothingWritten();
    });

    it('should validate the body as POST /jobs does (400) and send nothing', async () => {
      await expect(
        kit.service.testConfig(auth, body({ schedule: { expr: 'at no time at all' } })),
      ).rejects.toMatchObject({
        status: 400,
        body: { code: 'validation_failed', fields: { 'schedule.expr': expect.any(String) } },
      });
      const sink = { kind: 'webhook', config: { url: 'https://example.com/hook', body: '{{secret.MISSING}}' } };
      await expect(kit.service.testConfig(auth, body({ sink }))).rejects.toMatchObject({ status: 400 });
      expect(sent).toEqual([]);
    });

    it('should refuse a secret only another workspace has (400)', async () => {
      await kit.db.secrets.insert(OTHER_WORKSPACE, 'TOKEN', Buffer.from('x'));
      const sink = { kind: 'webhook', config: { url: 'https://example.com/hook', body: '{{secret.TOKEN}}' } };
      await expect(kit.service.testConfig(auth, body({ sink }))).rejects.toMatchObject({ status: 400 });
      await kit.db.secrets.insert(auth.workspaceId, 'TOKEN', Buffer.from('x'));
      await expect(kit.service.testConfig(auth, body({ sink }))).resolves.toMatchObject({ outcome: 'success' });
    });
  });
});
