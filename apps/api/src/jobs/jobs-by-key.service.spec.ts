import { authFor, jobsApiOver, OTHER_WORKSPACE, serviceOverKit, settle } from '../../../../test/kit';
import type { CreateJobDto } from './dto/job-body.dto';
import { JobsByKeyService } from './jobs-by-key.service';
import { JobsService } from './jobs.service';
import { webhookJobBody } from './test/job-body';

/**
 * JobsByKeyService over the in-memory kit: a PUT by key creates (201) or replaces (200); an
 * identical declaration writes nothing; If-Match / If-None-Match are 412; the state an operator
 * set survives; keys are per workspace.
 */
const declaration = (extra: Partial<CreateJobDto> = {}) => webhookJobBody('nightly', extra);

describe('JobsByKeyService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db, temporal) => {
    const api = jobsApiOver(db, temporal);
    const { jobs, runs, calendars } = db.repositories;
    const jobsService = new JobsService(
      jobs,
      runs,
      api.lifecycle,
      api.schedules,
      api.sinks,
      api.templates,
      api.settingsFactory,
      calendars,
      api.overrides,
      api.config,
    );
    return new JobsByKeyService(jobs, api.lifecycle, api.settingsFactory, api.templates, jobsService);
  });

  it('should create the job under its key on the first PUT (created) and audit it', async () => {
    const { created, job } = await kit.service.upsert(auth, 'reports.nightly', declaration(), {});
    expect(created).toBe(true);
    expect(job).toMatchObject({ key: 'reports.nightly', version: 1, state: 'active' });
    expect(job.signing_secret).toEqual(expect.any(String));
    expect(kit.db.audited().map((entry) => entry.action)).toEqual(['job.create']);
  });

  it('should write nothing for an identical declaration: no version, no audit, no signal', async () => {
    const first = await kit.service.upsert(auth, 'reports.nightly', declaration(), {});
    await settle();
    const again = await kit.service.upsert(auth, 'reports.nightly', declaration(), {});
    await settle();
    expect(again.created).toBe(false);
    expect(again.job).toMatchObject({ id: first.job.id, version: 1 });
    expect(again.job.signing_secret).toBeUndefined();
    expect(kit.db.audited()).toHaveLength(1);
    expect(kit.temporal.toldOf(first.job.id)).toHaveLength(1);
  });

  it('should replace a changed declaration, raise the version, and put what it leaves out at the defaults', async () => {
    const first = await kit.service.upsert(auth, 'k', declaration({ description: 'old', tags: ['x'] }), {});
    const { created, job } = await kit.service.upsert(auth, 'k', declaration({ name: 'renamed' }), {});
    expect(created).toBe(false);
    expect(job).toMatchObject({ id: first.job.id, name: 'renamed', description: '', tags: [], version: 2 });
    expect(kit.db.audited()[1]).toMatchObject({ action: 'job.update', target: first.job.id });
  });

  it('should keep the state an operator set (paused) across a PUT', async () => {
    const { job } = await kit.service.upsert(auth, 'k', declaration(), {});
    await kit.db.jobs.transitionState(job.id, {
      from: 'active',
      to: 'paused',
      revision: kit.db.stored(job.id)!.revision,
      nextRevision: kit.db.stored(job.id)!.revision + 1,
    } as never);
    const replaced = await kit.service.upsert(auth, 'k', declaration({ name: 'renamed' }), {});
    expect(replaced.job).toMatchObject({ state: 'paused', name: 'renamed', next_run_at: null });
  });

  it('should answer 412 precondition_failed for If-Match on a missing key, If-None-Match on an existing one, and a stale version', async () => {
    await expect(kit.service.upsert(auth, 'k', declaration(), { ifMatch: '*' })).rejects.toMatchObject({
      status: 412,
      body: { code: 'precondition_failed' },
    });
    expect(kit.db.tables.jobs.size).toBe(0);
    await kit.service.upsert(auth, 'k', declaration(), { ifNoneMatch: '*' });
    await expect(kit.service.upsert(auth, 'k', declaration(), { ifNoneMatch: '*' })).rejects.toMatchObject({
      status: 412,
    });
    await expect(kit.service.upsert(auth, 'k', declaration({ name: 'other' }), { ifMatch: 7 })).rejects.toMatchObject({
      status: 412,
      body: { message: expect.stringContaining('version 1, not 7') },
    });
    await expect(kit.service.upsert(auth, 'k', declaration({ name: 'other' }), { ifMatch: 1 })).resolves.toMatchObject({
      job: { version: 2 },
    });
  });

  it('should turn a create that lost the race for the key into the update of the winner (412 when create-only)', async () => {
    const winner = await kit.service.upsert(auth, 'k', declaration(), {});
    // The key was free when read, then taken before the insert (the unique index decides).
    jest.spyOn(kit.db.jobs, 'getByKey').mockResolvedValueOnce(null);
    const loser = await kit.service.upsert(auth, 'k', declaration({ name: 'second' }), {});
    expect(loser).toMatchObject({ created: false, job: { id: winner.job.id, name: 'second', version: 2 } });
    expect(kit.db.tables.jobs.size).toBe(1);
    jest.spyOn(kit.db.jobs, 'getByKey').mockResolvedValueOnce(null);
    await expect(kit.service.upsert(auth, 'k', declaration(), { ifNoneMatch: '*' })).rejects.toMatchObject({
      status: 412,
    });
  });

  it('should refuse a body key other than the path key (400 naming key) and write nothing', async () => {
    await expect(kit.service.upsert(auth, 'k', declaration({ key: 'other' }), {})).rejects.toMatchObject({
      status: 400,
      body: { code: 'validation_failed', fields: { key: expect.any(String) } },
    });
    expect(kit.db.tables.jobs.size).toBe(0);
  });

  it('should keep keys per workspace: the same key elsewhere is another job, invisible here', async () => {
    const theirs = await kit.service.upsert(authFor(OTHER_WORKSPACE), 'k', declaration(), {});
    await expect(kit.service.get(auth, 'k')).rejects.toMatchObject({ status: 404, body: { code: 'not_found' } });
    await expect(kit.service.remove(auth, 'k')).rejects.toMatchObject({ status: 404 });
    const mine = await kit.service.upsert(auth, 'k', declaration(), {});
    expect(mine.created).toBe(true);
    expect(mine.job.id).not.toBe(theirs.job.id);
  });

  it('should get and delete by key', async () => {
    const { job } = await kit.service.upsert(auth, 'k', declaration(), {});
    await expect(kit.service.get(auth, 'k')).resolves.toMatchObject({ id: job.id, key: 'k' });
    await kit.service.remove(auth, 'k');
    expect(kit.db.stored(job.id)).toBeUndefined();
    await expect(kit.service.get(auth, 'k')).rejects.toMatchObject({ status: 404 });
  });
});
