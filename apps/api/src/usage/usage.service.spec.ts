import {
  authFor,
  FakeTemporal,
  KIT_WORKSPACE,
  kitConfig,
  lifecycleOver,
  OTHER_WORKSPACE,
  serviceOverKit,
} from '../../../../test/kit';
import { UsageService } from './usage.service';

/** UsageService over the in-memory kit: the UTC month's run count of the caller's workspace and its plan's cap. */
describe('UsageService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db) => {
    const config = kitConfig({
      plans: { capped: { max_runs_per_month_per_workspace: 500, over_quota_policy: 'block' } },
    });
    db.plans.set(KIT_WORKSPACE, 'capped');
    return new UsageService(db.repositories.runs, lifecycleOver(db, new FakeTemporal(), config));
  });

  it("should count the month's runs of the workspace by UTC month, with the plan's cap and the reset", async () => {
    kit.db.addRun({ id: 'run_1', jobId: 'job_1', scheduledAt: new Date('2026-11-01T00:00:00Z') });
    kit.db.addRun({ id: 'run_2', jobId: 'job_1', scheduledAt: new Date('2026-11-30T23:59:59Z') });
    kit.db.addRun({ id: 'run_3', jobId: 'job_1', scheduledAt: new Date('2026-10-31T23:59:59Z') });
    kit.db.addRun({
      id: 'run_4',
      jobId: 'job_9',
      scheduledAt: new Date('2026-11-15T00:00:00Z'),
      workspaceId: OTHER_WORKSPACE,
    });
    await expect(kit.service.get(auth, new Date('2026-11-15T12:00:00Z'))).resolves.toEqual({
      month: '2026-11',
      runs: 2,
      limit: 500,
      over_quota_policy: 'block',
      reset_at: '2026-12-01T00:00:00.000Z',
    });
  });

  it("should answer another plan's cap for another workspace (the default plan)", async () => {
    const usage = await kit.service.get(authFor(OTHER_WORKSPACE), new Date('2026-11-15T12:00:00Z'));
    const defaults = kitConfig();
    expect(usage).toMatchObject({
      runs: 0,
      limit: defaults.plans[defaults.default_plan].max_runs_per_month_per_workspace,
    });
  });
});
