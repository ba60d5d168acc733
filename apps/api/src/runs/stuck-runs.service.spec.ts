import type { PendingAttemptView } from '@svc/orchestration';
import { authFor, kitConfig, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import { StuckRunsService } from './stuck-runs.service';

/**
 * StuckRunsService over the in-memory kit and the fake Temporal: only open runs that may be stuck
 * (from their row) are described; of those, the ones whose workflow runs and the rule judges stuck
 * are listed newest first with the reason; Temporal down is 503; other workspaces' runs are never
 * read.
 */
const MINUTE = 60_000;

describe('StuckRunsService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db, temporal) => {
    const config = kitConfig({ temporal: { ui_url: 'https://temporal.example.com' } });
    return new StuckRunsService(db.repositories.runs, db.repositories.jobs, temporal.typedGateway, config);
  });

  const attempt = (extra: Partial<PendingAttemptView> = {}): PendingAttemptView => ({
    activityType: 'runAttempt',
    state: 'started',
    attempt: 1,
    scheduledAt: new Date(Date.now() - 2 * 60 * MINUTE),
    lastStartedAt: new Date(Date.now() - 2 * 60 * MINUTE),
    lastHeartbeatAt: new Date(Date.now() - 1_000),
    lastFailure: null,
    lastWorkerIdentity: 'worker@host',
    ...extra,
  });

  /** An open run of `jobId` that started `minutesAgo`, its workflow running with a live attempt unless `running` is false. */
  const openRun = (id: string, jobId: string, minutesAgo: number, running = true, workspaceId = auth.workspaceId) => {
    const at = new Date(Date.now() - minutesAgo * MINUTE);
    kit.db.addRun({ id, jobId, workspaceId, status: 'running', scheduledAt: at, startedAt: at, attemptsCount: 1 });
    if (running) {
      kit.temporal.runViews.set(id, { status: 'RUNNING', pendingActivities: [attempt()] });
    }
  };

  it('should list a run past its retry budget, with the reason and where to look in Temporal', async () => {
    const job = kit.db.addJob('active');
    openRun('run_stuck', job.id, 120);
    const { data, next_cursor } = await kit.service.list(auth, {});
    expect(next_cursor).toBeNull();
    expect(data).toEqual([
      expect.objectContaining({
        id: 'run_stuck',
        stuck: expect.objectContaining({
          reasons: ['past_retry_budget'],
          temporal: expect.objectContaining({
            workflow_id: 'run_stuck',
            ui_url: expect.stringMatching(/^https:\/\/temporal\.example\.com\/namespaces\/.+\/workflows\/run_stuck$/),
          }),
        }),
      }),
    ]);
  });

  it('should list an attempt silent past the heartbeat timeout as no_heartbeat', async () => {
    const job = kit.db.addJob('active');
    openRun('run_silent', job.id, 1);
    kit.temporal.runViews.set('run_silent', {
      status: 'RUNNING',
      pendingActivities: [attempt({ lastStartedAt: new Date(Date.now() - MINUTE), lastHeartbeatAt: null })],
    });
    const { data } = await kit.service.list(auth, {});
    expect(data.map((run) => run.stuck?.reasons)).toEqual([['no_heartbeat']]);
  });

  it('should describe only runs their row says may be stuck, and list none whose workflow is not running', async () => {
    const job = kit.db.addJob('active');
    openRun('run_fresh', job.id, 0);
    openRun('run_done_in_temporal', job.id, 120, false);
    kit.temporal.runViews.set('run_done_in_temporal', { status: 'COMPLETED', pendingActivities: [] });
    openRun('run_no_workflow', job.id, 120, false);
    await expect(kit.service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
    expect(kit.temporal.described.sort()).toEqual(['run_done_in_temporal', 'run_no_workflow']);
  });

  it('should list newest first, at most the page size', async () => {
    const job = kit.db.addJob('active');
    openRun('run_old', job.id, 180);
    openRun('run_newer', job.id, 120);
    const { data } = await kit.service.list(auth, { limit: 1 });
    expect(data.map((run) => run.id)).toEqual(['run_newer']);
  });

  it('should answer 503 when Temporal cannot be asked', async () => {
    const job = kit.db.addJob('active');
    openRun('run_stuck', job.id, 120);
    kit.temporal.down = true;
    await expect(kit.service.list(auth, {})).rejects.toMatchObject({ status: 503, body: { code: 'unavailable' } });
  });

  it('should answer nothing for a closed status or a job id of another format, asking Temporal nothing', async () => {
    const job = kit.db.addJob('active');
    openRun('run_stuck', job.id, 120);
    await expect(kit.service.list(auth, { status: 'failed' })).resolves.toEqual({ data: [], next_cursor: null });
    await expect(kit.service.list(auth, { job_id: 'nope' })).resolves.toEqual({ data: [], next_cursor: null });
    expect(kit.temporal.described).toEqual([]);
  });

  it("should never read another workspace's runs", async () => {
    const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
    openRun('run_theirs', theirs.id, 120, true, OTHER_WORKSPACE);
    await expect(kit.service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
    expect(kit.temporal.described).toEqual([]);
  });
});
