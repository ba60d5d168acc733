import { authFor, jobsApiOver, KIT_WORKSPACE, kitConfig, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import type { ApplyJobsDto, DeclaredJobDto } from './dto/job-body.dto';
import { JobsApplyService } from './jobs-apply.service';
import { webhookJobBody } from './test/job-body';

/**
 * JobsApplyService over the in-memory kit: the whole set validated before anything is written,
 * ownership (409 unless adopt), prune of one owner's jobs, dry runs, the plan's cap for the set,
 * and the one `jobs.apply` audit entry.
 */
const job = (key: string, extra: Partial<DeclaredJobDto> = {}) =>
  ({ key, ...webhookJobBody(key), ...extra }) as DeclaredJobDto;

const set = (jobs: DeclaredJobDto[], extra: Partial<ApplyJobsDto> = {}) =>
  ({ managed_by: 'repo:infra', jobs, ...extra }) as ApplyJobsDto;

describe('JobsApplyService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db, temporal) => {
    db.plans.set(KIT_WORKSPACE, 'tiny');
    const api = jobsApiOver(db, temporal, kitConfig({ plans: { tiny: { max_jobs_per_workspace: 3 } } }));
    const { transactions, jobs, audit } = db.repositories;
    return new JobsApplyService(transactions, jobs, audit, api.lifecycle, api.settingsFactory, api.templates);
  });

  const keys = () => [...kit.db.tables.jobs.values()].map((row) => `${row.key}:${row.managedBy}`).sort();

  it('should create the set under its owner, answer the ids, and audit one jobs.apply', async () => {
    const plan = await kit.service.apply(auth, set([job('a'), job('b')]));
    expect(plan).toMatchObject({ managed_by: 'repo:infra', dry_run: false, created: ['a', 'b'], updated: [] });
    expect(Object.keys(plan.ids)).toEqual(['a', 'b']);
    expect(keys()).toEqual(['a:repo:infra', 'b:repo:infra']);
    expect(kit.db.audited()).toEqual([
      expect.objectContaining({
        action: 'jobs.apply',
        target: 'repo:infra',
        details: expect.objectContaining({ counts: expect.objectContaining({ created: 2 }), created: ['a', 'b'] }),
      }),
    ]);
  });

  it('should write nothing, not even the audit entry, when the set is unchanged', async () => {
    await kit.service.apply(auth, set([job('a')]));
    const again = await kit.service.apply(auth, set([job('a')]));
    expect(again).toMatchObject({ created: [], updated: [], unchanged: ['a'] });
    expect(kit.db.audited()).toHaveLength(1);
    expect(kit.db.stored(again.ids.a)!.version).toBe(1);
  });

  it('should update what changed, naming the changed fields', async () => {
    await kit.service.apply(auth, set([job('a')]));
    const plan = await kit.service.apply(auth, set([job('a', { description: 'now described' })]));
    expect(plan.updated).toEqual([{ key: 'a', changes: ['description'] }]);
    expect(kit.db.stored(plan.ids.a)).toMatchObject({ description: 'now described', version: 2 });
  });

  it('should answer a dry run as the apply would, and write nothing', async () => {
    await kit.service.apply(auth, set([job('a')]));
    const plan = await kit.service.apply(auth, set([job('b')], { prune: true, dry_run: true }));
    expect(plan).toMatchObject({ dry_run: true, created: ['b'], deleted: ['a'] });
    expect(keys()).toEqual(['a:repo:infra']);
    expect(kit.db.audited()).toHaveLength(1);
  });

  it("should prune only the owner's jobs that the set leaves out", async () => {
    await kit.service.apply(auth, set([job('a'), job('b')]));
    await kit.service.apply(auth, set([job('theirs')], { managed_by: 'repo:other' }));
    const plan = await kit.service.apply(auth, set([job('a')], { prune: true }));
    expect(plan.deleted).toEqual(['b']);
    expect(keys()).toEqual(['a:repo:infra', 'theirs:repo:other']);
  });

  it('should refuse prune without managed_by (400 naming prune)', async () => {
    await expect(
      kit.service.apply(auth, set([job('a')], { managed_by: undefined, prune: true })),
    ).rejects.toMatchObject({
      status: 400,
      body: { code: 'validation_failed', fields: { prune: expect.any(String) } },
    });
  });

  it('should refuse the whole set when one job is invalid or a key repeats, naming each, and write nothing', async () => {
    const refused = kit.service.apply(auth, set([job('a'), job('b', { schedule: { expr: 'never ever' } }), job('a')]));
    await expect(refused).rejects.toMatchObject({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'The set was refused; nothing was applied',
        fields: { 'jobs[1].schedule.expr': expect.any(String), 'jobs[2].key': expect.stringContaining('duplicate') },
      },
    });
    expect(kit.db.tables.jobs.size).toBe(0);
    expect(kit.db.tables.audit).toEqual([]);
  });

  it('should refuse keys another owner holds (409 conflict) unless adopt, then take them over', async () => {
    await kit.service.apply(auth, set([job('a')], { managed_by: 'repo:other' }));
    await expect(kit.service.apply(auth, set([job('a')]))).rejects.toMatchObject({
      status: 409,
      body: { code: 'conflict', message: expect.stringContaining('"a" (managed by repo:other)') },
    });
    const plan = await kit.service.apply(auth, set([job('a')], { adopt: true }));
    expect(plan.updated).toEqual([{ key: 'a', changes: expect.arrayContaining(['managed_by']) }]);
    expect(keys()).toEqual(['a:repo:infra']);
  });

  it("should refuse a set beyond the plan's job cap (403 limit_exceeded) before writing anything", async () => {
    await expect(kit.service.apply(auth, set([job('a'), job('b'), job('c'), job('d')]))).rejects.toMatchObject({
      status: 403,
      body: { code: 'limit_exceeded', limit: 'max_jobs_per_workspace', value: 3 },
    });
    expect(kit.db.tables.jobs.size).toBe(0);
  });

  it('should refuse a template naming a missing secret (400 keyed by the job) and write nothing', async () => {
    const sink = { kind: 'webhook', config: { url: 'https://example.com/hook', body: '{{secret.NOPE}}' } };
    await expect(kit.service.apply(auth, set([job('a'), job('b', { sink })]))).rejects.toMatchObject({
      status: 400,
      body: { fields: expect.objectContaining({ 'jobs[1].sink.config.body': expect.any(String) }) },
    });
    expect(kit.db.tables.jobs.size).toBe(0);
  });

  it("should neither see nor touch another workspace's jobs of the same key and owner", async () => {
    await kit.service.apply(authFor(OTHER_WORKSPACE), set([job('a'), job('b')]));
    const plan = await kit.service.apply(auth, set([job('a')], { prune: true }));
    expect(plan).toMatchObject({ created: ['a'], deleted: [] });
    expect([...kit.db.tables.jobs.values()].filter((row) => row.workspaceId === OTHER_WORKSPACE)).toHaveLength(2);
  });

  it('should keep the state an operator set and say so in the plan', async () => {
    const { ids } = await kit.service.apply(auth, set([job('a')]));
    kit.db.stored(ids.a)!.state = 'paused';
    const plan = await kit.service.apply(auth, set([job('a', { description: 'x' })]));
    expect(plan.kept).toEqual([{ key: 'a', reason: 'paused' }]);
    expect(kit.db.stored(ids.a)).toMatchObject({ state: 'paused', description: 'x' });
  });
});
