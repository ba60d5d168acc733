import { RunEntity } from '@svc/persistence';
import { RUN_WORKFLOW } from '@svc/workflow-contract/definitions';
import { type ActivityHarness, startActivityHarness } from '../../test/activity-harness';
import { repairStalledRuns } from './stalled-runs';

/**
 * The stalled-run sweep over a real database and the shared Temporal dev server (a task queue no
 * worker polls: a started run workflow stays running, which is all the sweep looks at).
 */
describe('repairStalledRuns', () => {
  let h: ActivityHarness;
  const GRACE_MS = 30_000;

  beforeAll(async () => {
    h = await startActivityHarness();
  });

  afterAll(async () => {
    await h?.stop();
  });

  const sweep = () =>
    repairStalledRuns({
      runs: h.runs,
      jobs: h.jobs,
      lifecycle: h.lifecycle,
      gateway: h.gateway,
      client: h.client,
      graceMs: GRACE_MS,
      clock: () => new Date(),
    });
  const run = (id: string) => h.ds.manager.findOneBy(RunEntity, { id });
  /** Makes a row look written (and last touched) `ms` ago. */
  const age = (id: string, ms: number) =>
    h.ds.query(
      `UPDATE runs SET created_at = now() - $2 * interval '1 millisecond', updated_at = now() - $2 * interval '1 millisecond' WHERE id = $1`,
      [id, ms],
    );
  const longAgo = (seconds: number) => new Date(Math.floor(Date.now() / 1_000 - seconds) * 1_000).toISOString();

  it('should start, once, the workflow of a run whose row was written but whose workflow never started', async () => {
    const job = await h.insertJob();
    const orphan = await h.openRun(job, { scheduledAt: longAgo(120) });
    h.started.add(orphan.id);
    await age(orphan.id, 90_000);

    expect(await sweep()).toMatchObject({ started: 1, cancelled: 0, closed: 0 });
    const started = await h.client.workflow.getHandle(orphan.id).describe();
    expect({ type: started.type, status: started.status.name }).toEqual({ type: RUN_WORKFLOW, status: 'RUNNING' });

    // The next sweep finds its workflow running and starts nothing more.
    expect(await sweep()).toMatchObject({ started: 0 });
    const events = (await h.client.workflow.getHandle(orphan.id).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
  });

  it('should close a run of a deleted job cancelled', async () => {
    const job = await h.insertJob();
    const orphan = await h.openRun(job, { scheduledAt: longAgo(200) });
    await age(orphan.id, 90_000);
    await h.ds.query(`DELETE FROM jobs WHERE id = $1`, [job.id]);

    expect(await sweep()).toMatchObject({ cancelled: 1 });
    expect(await run(orphan.id)).toMatchObject({
      status: 'cancelled',
      lastError: 'job deleted before the run could finish',
    });
  });

  it('should close a run whose workflow ended without recording an outcome, with that end as reason', async () => {
    const job = await h.insertJob();
    const orphan = await h.openRun(job, { scheduledAt: longAgo(300) });
    await age(orphan.id, 90_000);
    await h.gateway.startRun({
      runId: orphan.id,
      jobId: job.id,
      workspaceId: job.workspaceId,
      jobVersion: job.version,
      scheduledAt: orphan.scheduledAt as string,
      trigger: 'schedule',
    });
    await h.client.workflow.getHandle(orphan.id).terminate('operator stopped it');

    expect(await sweep()).toMatchObject({ closed: 1 });
    expect(await run(orphan.id)).toMatchObject({
      status: 'failed',
      lastError: 'run workflow ended (terminated) without recording an outcome',
    });
  });

  it('should leave runs with a running workflow, runs within the grace and queued occurrences alone', async () => {
    const job = await h.insertJob({ overlapPolicy: 'queue' });
    const fresh = await h.openRun(job, { scheduledAt: longAgo(400) });
    const queued = await h.openRun(job, { scheduledAt: longAgo(399), status: 'deferred' });
    await age(queued.id, 90_000);

    const report = await sweep();
    expect(report.started).toBe(0);
    expect(await run(fresh.id)).toMatchObject({ status: 'running' });
    expect(await run(queued.id)).toMatchObject({ status: 'deferred' });
  });

  it('should count runs that stopped progressing for /readyz and the metrics', async () => {
    const job = await h.insertJob();
    const cutoff = () => new Date(Date.now() - GRACE_MS);
    const before = await h.runs.countStalled(cutoff());
    const stuck = await h.openRun(job, { scheduledAt: longAgo(500) });
    await age(stuck.id, 90_000);
    expect(await h.runs.countStalled(cutoff())).toBe(before + 1);
    await h.lifecycle.closeRun({ runId: stuck.id, status: 'cancelled', finishedAt: new Date() });
    expect(await h.runs.countStalled(cutoff())).toBe(before);
  });
});
