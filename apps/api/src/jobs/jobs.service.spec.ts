import type { CalendarsRepository } from '@svc/persistence';
import {
  authFor,
  jobsApiOver,
  KIT_WORKSPACE,
  kitConfig,
  OTHER_WORKSPACE,
  serviceOverKit,
  settle,
} from '../../../../test/kit';
import type { CreateJobDto, UpdateJobDto } from './dto/job-body.dto';
import { JobsService } from './jobs.service';

/**
 * JobsService over the in-memory kit with the real validators and JobLifecycle: the create
 * defaults, the PATCH merge validated as a create (a refused PATCH writes nothing), the mapping of
 * the lifecycle's answers, and tenant isolation.
 */
const HOOK = { kind: 'webhook', config: { url: 'https://example.com/hook' } };

function createDto(extra: Partial<CreateJobDto> = {}): CreateJobDto {
  return { name: 'nightly', schedule: { expr: 'every 1 hour' }, sink: HOOK, ...extra } as CreateJobDto;
}

describe('JobsService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db, temporal) => {
    const config = kitConfig({ plans: { tiny: { max_jobs_per_workspace: 2, min_interval: '1m' } } });
    db.plans.set(KIT_WORKSPACE, 'tiny');
    const api = jobsApiOver(db, temporal, config);
    return new JobsService(
      db.repositories.jobs,
      db.repositories.runs,
      api.lifecycle,
      api.schedules,
      api.sinks,
      api.templates,
      api.settingsFactory,
      db.repositories.calendars as CalendarsRepository,
      api.overrides,
      config,
    );
  });

  describe('create', () => {
    it('should write the job at the create defaults, answer its signing secret and next run, audit it', async () => {
      const job = await kit.service.create(auth, createDto());
      expect(job).toMatchObject({
        name: 'nightly',
        state: 'active',
        version: 1,
        schedule: { expr: 'every 1 hour', kind: 'natural', timezone: 'UTC' },
        misfire_policy: expect.any(String),
        overlap_policy: expect.any(String),
        timeout: expect.any(String),
      });
      expect(job.signing_secret).toEqual(expect.any(String));
      expect(Date.parse(job.next_run_at!)).toBeGreaterThan(Date.now() - 1_000);
      expect(kit.db.stored(job.id)).toMatchObject({ workspaceId: KIT_WORKSPACE, name: 'nightly' });
      expect(kit.db.audited()).toEqual([expect.objectContaining({ action: 'job.create', target: job.id })]);
      await settle();
      expect(kit.temporal.toldOf(job.id)).toEqual([{ state: 'active', revision: 1, version: 1 }]);
    });

    it('should not echo a signing secret the caller chose', async () => {
      const job = await kit.service.create(auth, createDto({ signing_secret: 'whsec_' + 'a'.repeat(40) }));
      expect(job.signing_secret).toBeUndefined();
    });

    it("should refuse a schedule below the plan's minimum interval (403 limit_exceeded min_interval), writing nothing", async () => {
      await expect(
        kit.service.create(auth, createDto({ schedule: { expr: 'every 10 seconds' } })),
      ).rejects.toMatchObject({
        status: 403,
        body: { code: 'limit_exceeded', limit: 'min_interval' },
      });
      expect(kit.db.tables.jobs.size).toBe(0);
      expect(kit.db.tables.audit).toEqual([]);
    });

    it('should refuse an unknown sink kind and a bad schedule in one 400 naming both fields', async () => {
      const refused = kit.service.create(
        auth,
        createDto({ schedule: { expr: 'whenever it suits' }, sink: { kind: 'pigeon', config: {} } }),
      );
      await expect(refused).rejects.toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      const fields = await refused.catch((err: { body: { fields: Record<string, string> } }) => err.body.fields);
      expect(Object.keys(fields)).toEqual(expect.arrayContaining(['schedule.expr', 'sink.kind']));
      expect(kit.db.tables.jobs.size).toBe(0);
    });

    it('should refuse a template naming a secret the workspace does not have (400), writing nothing', async () => {
      const sink = { kind: 'webhook', config: { url: 'https://example.com/hook', body: '{{secret.MISSING}}' } };
      await expect(kit.service.create(auth, createDto({ sink }))).rejects.toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
      expect(kit.db.tables.jobs.size).toBe(0);
    });

    it("should refuse a job beyond the plan's cap (403 limit_exceeded max_jobs_per_workspace)", async () => {
      await kit.service.create(auth, createDto());
      await kit.service.create(auth, createDto());
      await expect(kit.service.create(auth, createDto())).rejects.toMatchObject({
        status: 403,
        body: { code: 'limit_exceeded', limit: 'max_jobs_per_workspace' },
      });
      await expect(kit.service.create(authFor(OTHER_WORKSPACE), createDto())).resolves.toMatchObject({
        state: 'active',
      });
    });
  });

  describe('get and list', () => {
    it('should answer a job with its next runs and 24 h stats', async () => {
      const { id } = await kit.service.create(auth, createDto());
      kit.db.addRun({ id: 'run_1', jobId: id, status: 'failed', scheduledAt: new Date() });
      const job = await kit.service.get(auth, id);
      expect(job.next_runs).toHaveLength(5);
      expect(job.stats_24h).toMatchObject({ runs: 1, failed: 1, succeeded: 0 });
    });

    it('should answer no next runs for a paused job', async () => {
      const paused = kit.db.addJob('paused');
      await expect(kit.service.get(auth, paused.id)).resolves.toMatchObject({ next_run_at: null, next_runs: [] });
    });

    it("should not find another workspace's job (404 not_found), nor list it", async () => {
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.get(auth, theirs.id)).rejects.toMatchObject({
        status: 404,
        body: { code: 'not_found', message: 'Job not found' },
      });
      await expect(kit.service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
    });

    it("should list the workspace's jobs newest first, each with its latest run", async () => {
      const older = kit.db.addJob('active');
      const newer = kit.db.addJob('paused');
      kit.db.addRun({ id: 'run_latest', jobId: older.id, status: 'succeeded' });
      const page = await kit.service.list(auth, { limit: 1 });
      expect(page.data.map((job) => job.id)).toEqual([newer.id]);
      const next = await kit.service.list(auth, { limit: 1, cursor: page.next_cursor! });
      expect(next.data).toEqual([
        expect.objectContaining({ id: older.id, latest_run: expect.objectContaining({ id: 'run_latest' }) }),
      ]);
    });
  });

  describe('update (PATCH)', () => {
    it('should merge the patch into the stored job, raise the version and audit the fields', async () => {
      const created = await kit.service.create(auth, createDto({ tags: ['a'] }));
      const updated = await kit.service.update(auth, created.id, { description: 'hourly report' } as UpdateJobDto);
      expect(updated).toMatchObject({ description: 'hourly report', tags: ['a'], version: 2 });
      expect(kit.db.audited()[1]).toMatchObject({ action: 'job.update', target: created.id });
    });

    it('should validate a new schedule as a create does and write nothing when it is refused', async () => {
      const created = await kit.service.create(auth, createDto());
      const patch = { schedule: { expr: 'every 5 seconds' }, description: 'x' } as UpdateJobDto;
      await expect(kit.service.update(auth, created.id, patch)).rejects.toMatchObject({
        status: 403,
        body: { limit: 'min_interval' },
      });
      expect(kit.db.stored(created.id)).toMatchObject({ description: '', version: 1 });
      expect(kit.db.audited()).toHaveLength(1);
    });

    it("should not find an unknown job or another workspace's (404), and leave the latter unchanged", async () => {
      await expect(kit.service.update(auth, 'job_missing', { description: 'x' } as UpdateJobDto)).rejects.toMatchObject(
        {
          status: 404,
        },
      );
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.update(auth, theirs.id, { description: 'x' } as UpdateJobDto)).rejects.toMatchObject({
        status: 404,
      });
      expect(kit.db.stored(theirs.id)?.description).toBe('');
    });
  });

  describe('state changes, trigger, delete', () => {
    it('should pause an active job (no next run) and resume it (a next run again)', async () => {
      const { id } = await kit.service.create(auth, createDto());
      await expect(kit.service.pause(auth, id)).resolves.toMatchObject({ state: 'paused', next_run_at: null });
      const resumed = await kit.service.resume(auth, id);
      expect(resumed.state).toBe('active');
      expect(resumed.next_run_at).not.toBeNull();
    });

    it('should refuse to pause a paused job (409 conflict)', async () => {
      const paused = kit.db.addJob('paused');
      await expect(kit.service.pause(auth, paused.id)).rejects.toMatchObject({
        status: 409,
        body: { code: 'conflict' },
      });
    });

    it('should trigger a run whose row exists when it answers', async () => {
      const { id } = await kit.service.create(auth, createDto());
      const { run_id } = await kit.service.trigger(auth, id);
      expect(kit.db.tables.runs.get(run_id)).toMatchObject({ jobId: id, trigger: 'manual' });
      expect(kit.temporal.started.map((input) => input.runId)).toEqual([run_id]);
    });

    it("should not trigger, pause or delete another workspace's job (404)", async () => {
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.trigger(auth, theirs.id)).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.pause(auth, theirs.id)).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.remove(auth, theirs.id)).rejects.toMatchObject({ status: 404 });
      expect(kit.db.stored(theirs.id)).toMatchObject({ state: 'active' });
      expect(kit.db.tables.runs.size).toBe(0);
    });

    it('should rotate the signing secret and answer the new one once', async () => {
      const created = await kit.service.create(auth, createDto());
      const rotated = await kit.service.rotateSigningSecret(auth, created.id);
      expect(rotated.signing_secret).toEqual(expect.any(String));
      expect(rotated.signing_secret).not.toBe(created.signing_secret);
    });

    it('should delete the job and tell its workflow', async () => {
      const { id } = await kit.service.create(auth, createDto());
      await kit.service.remove(auth, id);
      await settle();
      expect(kit.db.stored(id)).toBeUndefined();
      expect(kit.temporal.deleted).toEqual([id]);
    });
  });
});
