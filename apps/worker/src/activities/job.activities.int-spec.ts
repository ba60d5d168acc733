import { newId } from '@svc/workflow-contract/ids';
import { createWorkerMetrics, type WorkerMetrics } from '@svc/common/metrics';
import { AuditLogEntity, JobEntity, RunEntity, UsageCounterEntity } from '@svc/persistence';
import type { JobActivities, OccurrenceDecision, OpenRunsInput } from '@svc/workflow-contract/activity-types';
import {
  RUN_CODE_VERSION,
  RUN_WORKFLOW,
  runsTaskQueue,
  SEARCH_ATTRIBUTES,
  type RunWorkflowInput,
} from '@svc/workflow-contract/definitions';
import { WorkflowNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { type ActivityHarness, startActivityHarness } from '../../test/activity-harness';
import { createJobActivities } from './job.activities';

/**
 * The job workflow's local activities over a real database, starting and cancelling real run
 * workflows on the shared Temporal dev server (a task queue no worker polls, so they stay where the
 * activity left them; terminated at the end).
 */
describe('job activities', () => {
  let h: ActivityHarness;
  let activities: JobActivities;
  const env = () => new MockActivityEnvironment();

  beforeAll(async () => {
    h = await startActivityHarness();
    activities = activitiesOver(h);
  });

  /** The job activities over the harness's repositories, gateway and config. */
  function activitiesOver(harness: ActivityHarness, metrics?: WorkerMetrics): JobActivities {
    return createJobActivities({
      jobs: harness.jobs,
      runs: harness.runs,
      workspaces: harness.workspaces,
      lifecycle: harness.lifecycle,
      gateway: harness.gateway,
      config: harness.config,
      clock: () => new Date(),
      metrics,
    });
  }

  afterAll(async () => {
    await h?.stop();
  });

  const run = (id: string) => h.ds.manager.findOneBy(RunEntity, { id });
  const month = () => new Date().toISOString().slice(0, 7);
  const usage = async (workspaceId: string) =>
    (await h.ds.manager.findOneBy(UsageCounterEntity, { workspaceId, month: month() }))?.runs ?? 0;
  const at = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1_000 - secondsAgo) * 1_000).toISOString();

  function decision(action: OccurrenceDecision['action'], scheduledAt: string, skipReason?: string) {
    const d: OccurrenceDecision = { runId: newId('run'), scheduledAt, action };
    if (skipReason) {
      d.skipReason = skipReason as OccurrenceDecision['skipReason'];
    }
    if (action !== 'skip') {
      h.started.add(d.runId);
    }
    return d;
  }

  function openRunsInput(job: JobEntity, decisions: OccurrenceDecision[], notifyJob = true): OpenRunsInput {
    return { jobId: job.id, workspaceId: job.workspaceId, jobVersion: job.version, decisions, notifyJob };
  }

  /** The input a run workflow was started with, read back from its first history event. */
  async function startedWith(runId: string): Promise<RunWorkflowInput> {
    const history = await h.client.workflow.getHandle(runId).fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    return JSON.parse(Buffer.from(payload.data!).toString('utf8')) as RunWorkflowInput;
  }

  /** How many times a workflow was started and asked to cancel, from its history. */
  async function historyOf(workflowId: string): Promise<{ starts: number; cancelRequests: number }> {
    const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    return {
      starts: events.filter((e) => e.workflowExecutionStartedEventAttributes).length,
      cancelRequests: events.filter((e) => e.workflowExecutionCancelRequestedEventAttributes).length,
    };
  }

  describe('openRuns', () => {
    it('should write one row per decision, start the runs to start, and repeat nothing when re-executed', async () => {
      const job = await h.insertJob({ overlapPolicy: 'queue' });
      const start = decision('start', at(2));
      const queue = decision('queue', at(1));
      const skip = decision('skip', at(0), 'previous_run_in_progress');
      const input = openRunsInput(job, [start, queue, skip]);
      const before = await usage(job.workspaceId);

      await env().run(activities.openRuns, input);

      expect(await run(start.runId)).toMatchObject({
        status: 'running',
        trigger: 'schedule',
        jobVersion: 1,
        attemptsCount: 0,
        startedAt: null,
        finishedAt: null,
        skipReason: null,
      });
      expect((await run(start.runId))!.claimedAt).not.toBeNull();
      expect(await run(queue.runId)).toMatchObject({ status: 'deferred', attemptsCount: 0, nextAttemptAt: null });
      const skipped = await run(skip.runId);
      expect(skipped).toMatchObject({ status: 'skipped', skipReason: 'previous_run_in_progress' });
      expect(skipped!.finishedAt).not.toBeNull();
      // The started and the queued occurrence count against the month; the skipped one does not.
      expect(await usage(job.workspaceId)).toBe(before + 2);

      const started = await h.client.workflow.getHandle(start.runId).describe();
      expect(started).toMatchObject({ type: RUN_WORKFLOW, taskQueue: runsTaskQueue(h.taskQueue) });
      expect(started.status.name).toBe('RUNNING');
      expect(started.searchAttributes[SEARCH_ATTRIBUTES.jobId]).toEqual([job.id]);
      expect(await startedWith(start.runId)).toEqual({
        runId: start.runId,
        jobId: job.id,
        workspaceId: job.workspaceId,
        jobVersion: 1,
        scheduledAt: start.scheduledAt,
        trigger: 'schedule',
        notifyJob: true,
        codeVersion: RUN_CODE_VERSION,
      });
      // A queued occurrence has no workflow until it is released; a skipped one never has.
      for (const id of [queue.runId, skip.runId]) {
        await expect(h.client.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
      }

      // At-least-once: the same local activity again writes, counts and starts nothing more.
      await env().run(activities.openRuns, input);
      expect(await h.ds.manager.countBy(RunEntity, { jobId: job.id })).toBe(3);
      expect(await usage(job.workspaceId)).toBe(before + 2);
      expect(await historyOf(start.runId)).toEqual({ starts: 1, cancelRequests: 0 });
    });

    it('should start every run of a catch-up, several at once, each exactly once', async () => {
      const job = await h.insertJob({ overlapPolicy: 'allow' });
      // A fire_all catch-up after an outage: 40 missed occurrences and a skip among them.
      const decisions = Array.from({ length: 40 }, (_, i) => decision('start', at(120 - i)));
      decisions.splice(20, 0, decision('skip', at(200), 'previous_run_in_progress'));
      const input = openRunsInput(job, decisions, false);

      await env().run(activities.openRuns, input);
      await env().run(activities.openRuns, input);

      const starts = decisions.filter((d) => d.action === 'start');
      const histories = await Promise.all(starts.map((d) => historyOf(d.runId)));
      expect(histories).toEqual(starts.map(() => ({ starts: 1, cancelRequests: 0 })));
      await expect(h.client.workflow.getHandle(decisions[20].runId).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    });

    it('should start runs that do not signal the job under overlap_policy allow', async () => {
      const job = await h.insertJob();
      const start = decision('start', at(0));
      await env().run(activities.openRuns, openRunsInput(job, [start], false));
      expect((await startedWith(start.runId)).notifyJob).toBe(false);
    });

    it('should count the missed occurrences the misfire policy folded into the runs it opened', async () => {
      const metrics = createWorkerMetrics({
        taskQueue: 'q',
        readBacklog: async () => ({ count: 0, oldestSeconds: 0 }),
      });
      const counted = activitiesOver(h, metrics);
      const job = await h.insertJob();
      const latest = decision('start', at(120));
      await env().run(counted.openRuns, { ...openRunsInput(job, [latest], false), collapsed: 4 });
      const text = await metrics.registry.metrics();
      expect(text).toContain('svc_occurrences_total{action="collapse",skip_reason="misfire"} 4');
      expect(text).toContain('svc_occurrences_total{action="start",skip_reason=""} 1');
      expect(await h.ds.manager.countBy(RunEntity, { jobId: job.id })).toBe(1);
    });
  });

  describe('openRuns: one run per occurrence (issue 21)', () => {
    it('should keep the first run of an occurrence when a retried task decides it under another id', async () => {
      const job = await h.insertJob();
      const scheduledAt = at(3);
      const first = decision('start', scheduledAt);
      const before = await usage(job.workspaceId);
      await expect(env().run(activities.openRuns, openRunsInput(job, [first], false))).resolves.toEqual({});

      // What older code did on a retried workflow task: the same occurrence under a new id.
      const second = decision('start', scheduledAt);
      const result = await env().run(activities.openRuns, openRunsInput(job, [second], false));

      expect(result).toEqual({ renamed: { [second.runId]: first.runId } });
      expect(await h.ds.manager.findBy(RunEntity, { jobId: job.id })).toEqual([
        expect.objectContaining({ id: first.runId, status: 'running' }),
      ]);
      expect(await usage(job.workspaceId)).toBe(before + 1);
      expect(await historyOf(first.runId)).toEqual({ starts: 1, cancelRequests: 0 });
      await expect(h.client.workflow.getHandle(second.runId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    });

    it('should refuse a second scheduled row for one occurrence in the database itself', async () => {
      const job = await h.insertJob();
      const scheduledAt = at(4);
      await h.openRun(job, { scheduledAt });
      await expect(
        h.ds.query(
          `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status)
           VALUES ($1, $2, $3, 1, $4, 'schedule', 'running')`,
          [newId('run'), job.workspaceId, job.id, scheduledAt],
        ),
      ).rejects.toThrow(/uq_runs_scheduled_occurrence/);
    });

    it('should never start an occurrence again once its run has ended', async () => {
      const job = await h.insertJob();
      const ended = await h.openRun(job, { scheduledAt: at(5) });
      await h.lifecycle.closeRun({ runId: ended.id, status: 'succeeded', finishedAt: new Date() });

      const again = decision('start', ended.scheduledAt as string);
      await env().run(activities.openRuns, openRunsInput(job, [again], false));

      await expect(h.client.workflow.getHandle(ended.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
      expect(await run(ended.id)).toMatchObject({ status: 'succeeded' });
    });

    it('should tell the job workflow not to track an occurrence that ended or that a backfill holds', async () => {
      const job = await h.insertJob();
      const ended = await h.openRun(job, { scheduledAt: at(6) });
      await h.lifecycle.closeRun({ runId: ended.id, status: 'succeeded', finishedAt: new Date() });
      // A backfill got to the next occurrence first (issue 45): its run signals no job workflow.
      const backfilled = newId('run');
      const backfilledAt = at(7);
      await h.ds.query(
        `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status)
         VALUES ($1, $2, $3, 1, $4, 'backfill', 'running')`,
        [backfilled, job.workspaceId, job.id, backfilledAt],
      );
      const decisions = [decision('start', ended.scheduledAt as string), decision('start', backfilledAt)];

      const result = await env().run(activities.openRuns, openRunsInput(job, decisions));

      expect(result).toEqual({
        renamed: { [decisions[0].runId]: ended.id, [decisions[1].runId]: backfilled },
        untracked: [ended.id, backfilled],
      });
    });

    it('should let a newer job version adopt an open occurrence that has not started', async () => {
      const job = await h.insertJob();
      const scheduledAt = new Date(Math.ceil(Date.now() / 1_000) * 1_000 + 60_000).toISOString();
      const prepared = decision('start', scheduledAt);
      await env().run(activities.openRuns, openRunsInput(job, [prepared], false));

      const reached = decision('start', scheduledAt);
      await env().run(activities.openRuns, { ...openRunsInput(job, [reached], false), jobVersion: 2 });

      expect(await run(prepared.runId)).toMatchObject({ jobVersion: 2, status: 'running' });
      expect(await h.ds.manager.countBy(RunEntity, { jobId: job.id })).toBe(1);
    });
  });

  describe('startQueuedRun', () => {
    it('should mark the waiting run running and start its workflow with its release time', async () => {
      const job = await h.insertJob({ overlapPolicy: 'queue' });
      const queued = decision('queue', at(5));
      await env().run(activities.openRuns, openRunsInput(job, [queued]));
      const releasedAt = new Date().toISOString();

      await env().run(activities.startQueuedRun, {
        jobId: job.id,
        workspaceId: job.workspaceId,
        jobVersion: job.version,
        run: { runId: queued.runId, scheduledAt: queued.scheduledAt },
        releasedAt,
      });

      expect(await run(queued.runId)).toMatchObject({ status: 'running', attemptsCount: 0 });
      expect(await startedWith(queued.runId)).toMatchObject({
        runId: queued.runId,
        scheduledAt: queued.scheduledAt,
        releasedAt,
        notifyJob: true,
      });
    });
  });

  describe('readWorkspaceGate', () => {
    it('should report no suspension and no blocking quota on a plan without a monthly cap', async () => {
      expect(h.config.plans[h.config.default_plan].over_quota_policy).toBe('allow');
      await expect(
        env().run(activities.readWorkspaceGate, { workspaceId: h.workspaceId, month: month() }),
      ).resolves.toEqual({ suspended: false, blockingQuota: null });
    });

    it('should report a suspended workspace', async () => {
      const slug = `suspended-${Math.random().toString(36).slice(2, 8)}`;
      const ws = await h.workspaces.create({ name: 'Suspended', slug, plan: h.config.default_plan });
      await h.workspaces.setSuspended(slug, true);
      await expect(env().run(activities.readWorkspaceGate, { workspaceId: ws.id, month: month() })).resolves.toEqual({
        suspended: true,
        blockingQuota: null,
      });
    });

    it("should report the blocking monthly cap with the month's use", async () => {
      const { plans } = h.config;
      expect(plans.free).toMatchObject({ over_quota_policy: 'block', max_runs_per_month_per_workspace: 10_000 });
      const slug = `capped-${Math.random().toString(36).slice(2, 8)}`;
      const ws = await h.workspaces.create({ name: 'Capped', slug, plan: 'free' });
      const job = await h.insertJob({ workspaceId: ws.id });
      await env().run(activities.openRuns, openRunsInput(job, [decision('queue', at(1)), decision('queue', at(0))]));

      await expect(env().run(activities.readWorkspaceGate, { workspaceId: ws.id, month: month() })).resolves.toEqual({
        suspended: false,
        blockingQuota: { limit: 10_000, used: 2 },
      });
      await expect(env().run(activities.readWorkspaceGate, { workspaceId: ws.id, month: '2001-01' })).resolves.toEqual({
        suspended: false,
        blockingQuota: { limit: 10_000, used: 0 },
      });
    });
  });

  describe('cancelRuns', () => {
    it('should close a waiting run, ask a started run to cancel and leave a retrying one to its workflow', async () => {
      const job = await h.insertJob({ overlapPolicy: 'cancel_previous' });
      const started = decision('start', at(3));
      const waiting = decision('queue', at(2));
      const retrying = decision('start', at(1));
      await env().run(activities.openRuns, openRunsInput(job, [started, waiting, retrying]));
      // The retrying run made an attempt and waits for the next one (deferred with next_attempt_at).
      await h.runs.startAttempt((await run(retrying.runId))!, 0, new Date(), 'POST /');
      await h.runs.deferRun(retrying.runId, new Date(Date.now() + 60_000), 'HTTP 503');

      await env().run(activities.cancelRuns, { runIds: [started.runId, waiting.runId, retrying.runId, newId('run')] });

      const cancelled = await run(waiting.runId);
      expect(cancelled).toMatchObject({ status: 'cancelled' });
      expect(cancelled!.finishedAt).not.toBeNull();
      // Started runs end through their own workflow (finishRun 'cancelled'): the request is recorded.
      expect(await run(started.runId)).toMatchObject({ status: 'running' });
      expect(await historyOf(started.runId)).toEqual({ starts: 1, cancelRequests: 1 });
      expect(await run(retrying.runId)).toMatchObject({ status: 'deferred', attemptsCount: 1 });
      expect(await historyOf(retrying.runId)).toEqual({ starts: 1, cancelRequests: 1 });
    });
  });

  describe('markJobCompleted', () => {
    const audit = (target: string) => h.ds.manager.findBy(AuditLogEntity, { target, action: 'job.complete' });

    it('should move an active job to completed, bump its revision and audit it as the system', async () => {
      const job = await h.insertJob({ revision: 4 });
      await env().run(activities.markJobCompleted, { jobId: job.id, revision: 4 });

      expect(await h.jobs.findByIdUnscoped(job.id)).toMatchObject({ state: 'completed', revision: 5 });
      expect(await audit(job.id)).toEqual([
        expect.objectContaining({ actor: 'system', action: 'job.complete', workspaceId: job.workspaceId }),
      ]);
      // Again (at-least-once): nothing changes, nothing more is audited.
      await env().run(activities.markJobCompleted, { jobId: job.id, revision: 4 });
      expect(await h.jobs.findByIdUnscoped(job.id)).toMatchObject({ state: 'completed', revision: 5 });
      expect(await audit(job.id)).toHaveLength(1);
    });

    it('should leave a job that changed since (another revision) or is not active', async () => {
      const changed = await h.insertJob({ revision: 3 });
      await env().run(activities.markJobCompleted, { jobId: changed.id, revision: 2 });
      expect(await h.jobs.findByIdUnscoped(changed.id)).toMatchObject({ state: 'active', revision: 3 });
      const paused = await h.insertJob({ state: 'paused' });
      await env().run(activities.markJobCompleted, { jobId: paused.id, revision: 1 });
      expect(await h.jobs.findByIdUnscoped(paused.id)).toMatchObject({ state: 'paused', revision: 1 });
      expect([...(await audit(changed.id)), ...(await audit(paused.id))]).toEqual([]);
    });
  });

  describe('loadJobSnapshot', () => {
    it("should return the job's current snapshot, or null when it is gone", async () => {
      const job = await h.insertJob({ overlapPolicy: 'skip', misfirePolicy: 'fire_all', revision: 7, version: 2 });
      await expect(env().run(activities.loadJobSnapshot, { jobId: job.id })).resolves.toMatchObject({
        jobId: job.id,
        workspaceId: job.workspaceId,
        revision: 7,
        version: 2,
        state: 'active',
        overlapPolicy: 'skip',
        misfirePolicy: 'fire_all',
        misfireThresholdMs: h.config.scheduler.misfire_threshold_ms,
        schedule: expect.objectContaining({ expr: job.scheduleExpr, timezone: 'UTC' }),
      });
      await expect(env().run(activities.loadJobSnapshot, { jobId: newId('job') })).resolves.toBeNull();
    });
  });
});
