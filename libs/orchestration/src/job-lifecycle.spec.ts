import { buildConfig, type PlanLimits } from '@svc/common';
import type { JobState } from '@svc/persistence';
import {
  FakeTemporal,
  InMemoryDatabase,
  jobSettings as settings,
  KIT_WORKSPACE,
  lifecycleOver,
  settle,
} from '../../../test/kit';
import { BackgroundWork } from './background-work';
import { type JobEdit, nextRevision } from './job-changes';
import { JobLifecycle } from './job-lifecycle';

/**
 * JobLifecycle over the in-memory kit (test/kit): every transition of the spec's job state table
 * (service-spec.md → Job states) with its error, the decisions.md rows (auto-disable, completed,
 * trigger), the one revision rule and the one retried follow-up.
 */

const WS = KIT_WORKSPACE;
const ACTOR = 'user:u_1';
const PLAN = 'tiny';
const config = buildConfig(
  { plans: { [PLAN]: { max_jobs_per_workspace: 2, max_runs_per_month_per_workspace: 3, over_quota_policy: 'block' } } },
  {},
);
const plan: PlanLimits = config.plans[PLAN];

/** A PATCH of the description (a field every state accepts). */
function descriptionEdit(text: string, hasNextOccurrence = true): JobEdit {
  return {
    fields: ['description'],
    apply: async (job) => {
      job.description = text;
    },
    hasNextOccurrence: () => hasNextOccurrence,
  };
}

const ALL_STATES: JobState[] = ['active', 'paused', 'disabled', 'completed'];

describe('JobLifecycle', () => {
  let db: InMemoryDatabase;
  let temporal: FakeTemporal;
  let followUps: BackgroundWork;
  let lifecycle: JobLifecycle;

  beforeEach(() => {
    db = new InMemoryDatabase(PLAN);
    temporal = new FakeTemporal();
    followUps = new BackgroundWork();
    lifecycle = lifecycleOver(db, temporal, config, followUps);
  });

  afterEach(async () => {
    await followUps.drain(1_000);
  });

  describe('create', () => {
    it('should write an active job at version and revision 1, audit it, and start its workflow after the answer', async () => {
      const { job, signingSecret } = await lifecycle.create(WS, ACTOR, settings(), { plan });
      expect(job).toMatchObject({
        workspaceId: WS,
        state: 'active',
        version: 1,
        revision: 1,
        consecutiveFailures: 0,
        disabledReason: null,
      });
      expect(job.id).toMatch(/^job_/);
      expect(signingSecret).toEqual(expect.any(String));
      expect(db.stored(job.id)?.signingSecrets).toEqual([{ secret: signingSecret, expires_at: null }]);
      expect(db.tables.audit).toEqual([
        {
          workspaceId: WS,
          actor: ACTOR,
          action: 'job.create',
          target: job.id,
          details: { name: 'nightly', sink: 'webhook' },
        },
      ]);
      await settle();
      expect(temporal.toldOf(job.id)).toEqual([{ state: 'active', revision: 1, version: 1 }]);
    });

    it('should give a job with another sink kind no signing secret', async () => {
      const { job, signingSecret } = await lifecycle.create(WS, ACTOR, settings({ sinkKind: 'command' }), { plan });
      expect(signingSecret).toBeUndefined();
      expect(db.stored(job.id)?.signingSecrets).toEqual([]);
    });

    it("should refuse a job beyond the plan's cap (403 limit_exceeded) and write nothing", async () => {
      await lifecycle.create(WS, ACTOR, settings(), { plan });
      await lifecycle.create(WS, ACTOR, settings(), { plan });
      await expect(lifecycle.create(WS, ACTOR, settings(), { plan })).rejects.toMatchObject({
        status: 403,
        body: { code: 'limit_exceeded', limit: 'max_jobs_per_workspace', value: 2 },
      });
      expect(db.tables.jobs.size).toBe(2);
      expect(db.tables.audit).toHaveLength(2);
    });

    it('should write nothing when the check inside the transaction refuses', async () => {
      const refused = lifecycle.create(WS, ACTOR, settings(), {
        plan,
        check: async () => {
          throw new Error('unknown secret');
        },
      });
      await expect(refused).rejects.toThrow('unknown secret');
      expect(db.tables.jobs.size).toBe(0);
      expect(db.tables.audit).toEqual([]);
    });
  });

  describe('createMany (a set of jobs, POST /jobs/apply)', () => {
    const unlimited: PlanLimits = { ...plan, max_jobs_per_workspace: 0 };
    const keyed = (key: string, extra: { signingSecret?: string } = {}) => ({
      settings: settings({ name: key }),
      identity: { key, managedBy: 'git:ops' },
      ...extra,
    });

    it('should write every job of the set as create does, with its own id, key and secret, and start each workflow', async () => {
      const written = await lifecycle.createMany(
        WS,
        ACTOR,
        [keyed('a'), keyed('b', { signingSecret: 'whsec_own' }), { settings: settings({ sinkKind: 'command' }) }],
        { plan: unlimited, audit: false },
      );
      expect(written.map(({ job }) => [job.key, job.managedBy, job.state, job.version, job.revision])).toEqual([
        ['a', 'git:ops', 'active', 1, 1],
        ['b', 'git:ops', 'active', 1, 1],
        [null, null, 'active', 1, 1],
      ]);
      expect(new Set(written.map(({ job }) => job.id)).size).toBe(3);
      expect(written.map(({ signingSecret }) => signingSecret)).toEqual([expect.any(String), 'whsec_own', undefined]);
      expect(db.stored(written[1].job.id)?.signingSecrets).toEqual([{ secret: 'whsec_own', expires_at: null }]);
      // `audit: false`: the caller writes one entry for the set.
      expect(db.tables.audit).toEqual([]);
      await settle();
      for (const { job } of written) {
        expect(temporal.toldOf(job.id)).toEqual([{ state: 'active', revision: 1, version: 1 }]);
      }
    });

    it("should check the plan's cap for the whole set and write nothing past it (403 limit_exceeded)", async () => {
      await lifecycle.create(WS, ACTOR, settings(), { plan });
      await expect(lifecycle.createMany(WS, ACTOR, [keyed('a'), keyed('b')], { plan })).rejects.toMatchObject({
        status: 403,
        body: { code: 'limit_exceeded', limit: 'max_jobs_per_workspace', value: 2 },
      });
      expect(db.tables.jobs.size).toBe(1);
      expect(await lifecycle.createMany(WS, ACTOR, [keyed('a')], { plan })).toHaveLength(1);
    });

    it('should refuse the whole set when one key is taken (409 naming it), and when one check refuses', async () => {
      await lifecycle.createMany(WS, ACTOR, [keyed('taken')], { plan: unlimited });
      await expect(
        lifecycle.createMany(WS, ACTOR, [keyed('new'), keyed('taken')], { plan: unlimited }),
      ).rejects.toMatchObject({ status: 409, message: 'A job with the key "taken" exists in this workspace' });
      const checked: string[] = [];
      await expect(
        lifecycle.createMany(WS, ACTOR, [keyed('c'), keyed('d')], {
          plan: unlimited,
          check: async (job) => {
            checked.push(job.identity!.key!);
            if (job.identity?.key === 'd') {
              throw new Error('unknown secret');
            }
          },
        }),
      ).rejects.toThrow('unknown secret');
      expect(checked).toEqual(['c', 'd']);
      expect([...db.tables.jobs.values()].map((job) => job.key)).toEqual(['taken']);
      await settle();
      expect(temporal.toldOf([...db.tables.jobs.keys()][0])).toHaveLength(1);
    });
  });

  describe('pause, resume, enable (the From column)', () => {
    const allowed = [
      { change: 'pause', from: 'active', to: 'paused' },
      { change: 'resume', from: 'paused', to: 'active' },
      { change: 'enable', from: 'disabled', to: 'active' },
    ] as const;

    it.each(allowed)(
      '$change should move $from → $to, raise the revision only, and tell the workflow before answering',
      async ({ change, from, to }) => {
        const job = db.addJob(from);
        const moved = await lifecycle.transition(WS, job.id, change, ACTOR);
        expect(moved).toMatchObject({ state: to, revision: job.revision + 1, version: job.version });
        expect(db.stored(job.id)).toMatchObject({ state: to, revision: job.revision + 1 });
        expect(db.tables.audit).toEqual([
          { workspaceId: WS, actor: ACTOR, action: `job.${change}`, target: job.id, details: {} },
        ]);
        // Told within the request: the change is in force when it answers.
        expect(temporal.toldOf(job.id)).toEqual([{ state: to, revision: job.revision + 1, version: job.version }]);
      },
    );

    it.each(allowed)(
      '$change should answer only once the workflow was told (in force when it returns)',
      async ({ change, from }) => {
        const job = db.addJob(from);
        let release!: () => void;
        temporal.slow = new Promise<void>((resolve) => (release = resolve));
        let answered = false;
        const answer = lifecycle.transition(WS, job.id, change, ACTOR).then(() => void (answered = true));
        await settle();
        expect(answered).toBe(false);
        release();
        await answer;
        expect(temporal.toldOf(job.id)).toHaveLength(1);
      },
    );

    it('enable should reset the failure counter and clear the reason of the disable', async () => {
      const job = db.addJob('disabled');
      const moved = await lifecycle.transition(WS, job.id, 'enable', ACTOR);
      expect(moved).toMatchObject({ state: 'active', consecutiveFailures: 0, disabledReason: null });
    });

    const refused = allowed.flatMap(({ change, from }) =>
      ALL_STATES.filter((state) => state !== from).map((state) => ({ change, from, state })),
    );
    const sentences = {
      pause: 'only an active job can be paused',
      resume: 'only a paused job can be resumed',
      enable: 'only a disabled job can be enabled',
    };

    it.each(refused)('$change of a $state job should be 409 conflict and change nothing', async ({ change, state }) => {
      const job = db.addJob(state);
      await expect(lifecycle.transition(WS, job.id, change, ACTOR)).rejects.toMatchObject({
        status: 409,
        body: { code: 'conflict', message: `The job is ${state}; ${sentences[change]}` },
      });
      expect(db.stored(job.id)).toMatchObject({ state, revision: job.revision, version: job.version });
      expect(db.tables.audit).toEqual([]);
      expect(temporal.snapshots).toEqual([]);
    });

    it('should answer 404 for a job of another workspace', async () => {
      const job = db.addJob('active', { workspaceId: 'ws_other' });
      await expect(lifecycle.transition(WS, job.id, 'pause', ACTOR)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('PATCH (any state)', () => {
    it.each(ALL_STATES)('should keep a %s job in its state, raising version and revision by one', async (state) => {
      // A completed job whose schedule has no further occurrence stays completed.
      const job = db.addJob(state);
      const { job: updated } = await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('changed', false));
      expect(updated).toMatchObject({
        state,
        description: 'changed',
        version: job.version + 1,
        revision: job.revision + 1,
      });
      expect(db.tables.audit).toEqual([
        {
          workspaceId: WS,
          actor: ACTOR,
          action: 'job.update',
          target: job.id,
          details: { fields: ['description'], version: job.version + 1 },
        },
      ]);
      expect(temporal.toldOf(job.id)).toEqual([{ state, revision: job.revision + 1, version: job.version + 1 }]);
    });

    it('should answer only once the workflow was told, and a create without waiting for it', async () => {
      let release!: () => void;
      temporal.slow = new Promise<void>((resolve) => (release = resolve));
      const { job } = await lifecycle.create(WS, ACTOR, settings(), { plan });
      let answered = false;
      const answer = lifecycle.update(WS, job.id, ACTOR, descriptionEdit('x')).then(() => void (answered = true));
      await settle();
      expect(answered).toBe(false);
      release();
      await answer;
      expect(temporal.toldOf(job.id)).toEqual([
        { state: 'active', revision: 1, version: 1 },
        { state: 'active', revision: 2, version: 2 },
      ]);
    });

    it('should make a completed job whose new schedule has a future occurrence active again', async () => {
      const job = db.addJob('completed');
      const { job: updated } = await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('more', true));
      expect(updated.state).toBe('active');
    });

    it.each(['active', 'paused', 'disabled'] as const)(
      'should never activate a %s job (only completed → active)',
      async (state) => {
        const job = db.addJob(state);
        const { job: updated } = await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('x', true));
        expect(updated.state).toBe(state);
      },
    );

    it('should write nothing when the edit is refused', async () => {
      const job = db.addJob('active');
      const edit: JobEdit = {
        fields: ['schedule'],
        apply: async (row) => {
          row.description = 'half-applied';
          throw new Error('invalid schedule');
        },
        hasNextOccurrence: () => true,
      };
      await expect(lifecycle.update(WS, job.id, ACTOR, edit)).rejects.toThrow('invalid schedule');
      expect(db.stored(job.id)).toMatchObject({ description: '', version: job.version, revision: job.revision });
      expect(db.tables.audit).toEqual([]);
      expect(temporal.snapshots).toEqual([]);
    });

    it('should write, audit and signal nothing when the edit finds the job unchanged (issue 42)', async () => {
      const job = db.addJob('paused');
      const edit: JobEdit = { fields: [], apply: () => Promise.resolve('unchanged'), hasNextOccurrence: () => true };
      const { job: answered, changed } = await lifecycle.update(WS, job.id, ACTOR, edit);
      expect(changed).toBe(false);
      expect(answered).toMatchObject({ version: job.version, revision: job.revision, state: 'paused' });
      expect(db.stored(job.id)).toMatchObject({ version: job.version, revision: job.revision });
      expect(db.tables.audit).toEqual([]);
      await settle();
      expect(temporal.snapshots).toEqual([]);
    });

    it('should leave the audit entry to the caller of an apply (audit: false), and still tell the workflow', async () => {
      const job = db.addJob('active');
      const { changed } = await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('applied'), { audit: false });
      expect(changed).toBe(true);
      expect(db.stored(job.id)).toMatchObject({ description: 'applied', version: job.version + 1 });
      expect(db.tables.audit).toEqual([]);
      expect(temporal.toldOf(job.id)).toHaveLength(1);
      await lifecycle.delete(WS, job.id, ACTOR, { audit: false });
      expect(db.stored(job.id)).toBeUndefined();
      expect(db.tables.audit).toEqual([]);
    });

    it('should give a job whose sink becomes a webhook a new signing secret, and take it when it stops being one', async () => {
      const job = db.addJob('active', { sinkKind: 'command', signingSecrets: [] });
      const toWebhook: JobEdit = {
        fields: ['sink'],
        apply: async (row) => {
          row.sinkKind = 'webhook';
        },
        hasNextOccurrence: () => true,
      };
      const { signingSecret } = await lifecycle.update(WS, job.id, ACTOR, toWebhook);
      expect(signingSecret).toEqual(expect.any(String));
      expect(db.stored(job.id)?.signingSecrets).toEqual([{ secret: signingSecret, expires_at: null }]);
      expect(db.tables.audit[0].details).toEqual({
        fields: ['sink'],
        version: job.version + 1,
        sink_kind: { from: 'command', to: 'webhook' },
      });

      const toCommand: JobEdit = { ...toWebhook, apply: async (row) => void (row.sinkKind = 'command') };
      const second = await lifecycle.update(WS, job.id, ACTOR, toCommand);
      expect(second.signingSecret).toBeUndefined();
      expect(db.stored(job.id)?.signingSecrets).toEqual([]);
    });

    it('should keep the signing secrets when the sink kind stays', async () => {
      const job = db.addJob('active');
      const { signingSecret } = await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('x'));
      expect(signingSecret).toBeUndefined();
      expect(db.stored(job.id)?.signingSecrets).toEqual(job.signingSecrets);
    });

    it('should answer 404 for an unknown job', async () => {
      await expect(lifecycle.update(WS, 'job_missing', ACTOR, descriptionEdit('x'))).rejects.toMatchObject({
        status: 404,
      });
    });
  });

  describe('DELETE (any state)', () => {
    it.each(ALL_STATES)(
      'should remove a %s job, keep its runs, and stop its workflow and in-flight runs',
      async (state) => {
        const job = db.addJob(state);
        db.addRun({ id: 'run_in_flight', jobId: job.id, status: 'running' });
        db.addRun({ id: 'run_done', jobId: job.id, status: 'succeeded' });
        await lifecycle.delete(WS, job.id, ACTOR);
        expect(db.stored(job.id)).toBeUndefined();
        expect([...db.tables.runs.keys()]).toEqual(['run_in_flight', 'run_done']);
        expect(db.tables.audit).toEqual([
          { workspaceId: WS, actor: ACTOR, action: 'job.delete', target: job.id, details: { name: 'nightly' } },
        ]);
        await settle();
        expect(temporal.deleted).toEqual([job.id]);
        expect(temporal.cancelled).toEqual(['run_in_flight']);
      },
    );

    it('should answer 404 for an unknown job', async () => {
      await expect(lifecycle.delete(WS, 'job_missing', ACTOR)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('trigger (paused or active)', () => {
    it.each(['active', 'paused'] as const)(
      'should open a manual run of a %s job, start it at once and leave the job unchanged',
      async (state) => {
        const job = db.addJob(state);
        const { runId } = await lifecycle.trigger(WS, job.id, ACTOR);
        expect(db.tables.runs.get(runId)).toMatchObject({ jobId: job.id, trigger: 'manual', status: 'running' });
        expect(temporal.started).toEqual([
          expect.objectContaining({ runId, jobId: job.id, trigger: 'manual', jobVersion: job.version }),
        ]);
        expect(db.stored(job.id)).toMatchObject({ state, revision: job.revision, version: job.version });
        expect(db.tables.audit).toEqual([
          { workspaceId: WS, actor: ACTOR, action: 'job.trigger', target: job.id, details: { run_id: runId } },
        ]);
      },
    );

    it.each(['disabled', 'completed'] as const)('should refuse to trigger a %s job (409 conflict)', async (state) => {
      const job = db.addJob(state);
      await expect(lifecycle.trigger(WS, job.id, ACTOR)).rejects.toMatchObject({
        status: 409,
        body: { message: `Cannot trigger a ${state} job; only active or paused jobs can be triggered` },
      });
      expect(db.tables.runs.size).toBe(0);
    });

    it('should answer 429 limit_exceeded at a blocking monthly cap', async () => {
      const job = db.addJob('active');
      const month = new Date();
      for (let i = 0; i < 3; i += 1) {
        db.addRun({ id: `run_${i}`, jobId: job.id, status: 'succeeded', scheduledAt: month });
      }
      await expect(lifecycle.trigger(WS, job.id, ACTOR)).rejects.toMatchObject({
        status: 429,
        body: { code: 'limit_exceeded', limit: 'max_runs_per_month_per_workspace', value: 3 },
      });
      expect(temporal.started).toEqual([]);
    });

    it('should remove the run again and answer 503 when Temporal cannot start it', async () => {
      const job = db.addJob('active');
      temporal.down = true;
      await expect(lifecycle.trigger(WS, job.id, ACTOR)).rejects.toMatchObject({ status: 503 });
      expect(db.tables.runs.size).toBe(0);
      expect(db.tables.audit).toEqual([]);
    });

    it('should record the overrides validated for the job on the run and in the audit entry', async () => {
      const job = db.addJob('active');
      const overrides = { body: 'once' };
      const { runId } = await lifecycle.trigger(WS, job.id, ACTOR, {}, async (read) => {
        expect(read.id).toBe(job.id);
        return overrides;
      });
      expect(db.tables.runs.get(runId)).toMatchObject({ trigger: 'manual', overrides });
      expect(db.tables.audit).toEqual([
        { workspaceId: WS, actor: ACTOR, action: 'job.trigger', target: job.id, details: { run_id: runId, overrides } },
      ]);
    });

    it('should write nothing when the overrides are refused', async () => {
      const job = db.addJob('active');
      const refused = new Error('400');
      await expect(lifecycle.trigger(WS, job.id, ACTOR, {}, () => Promise.reject(refused))).rejects.toBe(refused);
      expect(db.tables.runs.size).toBe(0);
      expect(db.tables.audit).toEqual([]);
      expect(temporal.started).toEqual([]);
    });

    it('should answer 404 for an unknown job', async () => {
      await expect(lifecycle.trigger(WS, 'job_missing', ACTOR)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('manual retry (through the same opening as trigger)', () => {
    const scheduledAt = new Date('2026-01-01T10:00:00Z');

    it('should open one retry per occurrence with the job of now, and answer it again while it runs', async () => {
      const job = db.addJob('paused');
      db.addRun({ id: 'run_failed', jobId: job.id, status: 'failed', scheduledAt });
      const first = await lifecycle.retryRun(WS, 'run_failed', ACTOR);
      expect(first.inserted).toBe(true);
      expect(first.run).toMatchObject({
        trigger: 'retry_manual',
        retryOf: 'run_failed',
        jobVersion: job.version,
        scheduledAt,
      });
      expect(db.tables.audit).toEqual([
        {
          workspaceId: WS,
          actor: ACTOR,
          action: 'run.retry',
          target: 'run_failed',
          details: { job_id: job.id, retry_run_id: first.run.id },
        },
      ]);
      const again = await lifecycle.retryRun(WS, 'run_failed', ACTOR);
      expect(again).toEqual({ run: expect.objectContaining({ id: first.run.id }), inserted: false });
      // Started twice (the second a no-op in Temporal: workflow id = run id), audited once.
      expect(temporal.started.map((input) => input.runId)).toEqual([first.run.id, first.run.id]);
      expect(db.tables.audit).toHaveLength(1);
    });

    it('should call the occurrence exhausted (409) once its retry has ended', async () => {
      const job = db.addJob('active');
      db.addRun({ id: 'run_failed', jobId: job.id, status: 'failed', scheduledAt });
      const { run } = await lifecycle.retryRun(WS, 'run_failed', ACTOR);
      db.tables.runs.get(run.id)!.status = 'failed';
      await expect(lifecycle.retryRun(WS, 'run_failed', ACTOR)).rejects.toMatchObject({
        status: 409,
        body: { message: `The manual retry of this occurrence is exhausted (run ${run.id} is failed)` },
      });
    });

    it.each(['succeeded', 'running', 'skipped', 'cancelled'] as const)(
      'should refuse to retry a %s run (409)',
      async (status) => {
        const job = db.addJob('active');
        db.addRun({ id: 'run_1', jobId: job.id, status });
        await expect(lifecycle.retryRun(WS, 'run_1', ACTOR)).rejects.toMatchObject({ status: 409 });
      },
    );

    it('should refuse a retry of a deleted job (409), and an unknown run (404)', async () => {
      db.addRun({ id: 'run_orphan', jobId: 'job_gone', status: 'failed' });
      await expect(lifecycle.retryRun(WS, 'run_orphan', ACTOR)).rejects.toMatchObject({
        status: 409,
        body: { message: 'Cannot retry a run of a deleted job' },
      });
      await expect(lifecycle.retryRun(WS, 'run_missing', ACTOR)).rejects.toMatchObject({ status: 404 });
    });

    it('should remove the retry again and answer 503 when Temporal cannot start it (the occurrence is not used up)', async () => {
      const job = db.addJob('active');
      db.addRun({ id: 'run_failed', jobId: job.id, status: 'failed', scheduledAt });
      temporal.down = true;
      await expect(lifecycle.retryRun(WS, 'run_failed', ACTOR)).rejects.toMatchObject({ status: 503 });
      expect([...db.tables.runs.keys()]).toEqual(['run_failed']);
      temporal.down = false;
      expect((await lifecycle.retryRun(WS, 'run_failed', ACTOR)).inserted).toBe(true);
    });

    it('should answer 429 at a blocking monthly cap', async () => {
      const job = db.addJob('active');
      const now = new Date();
      for (let i = 0; i < 3; i += 1) {
        db.addRun({ id: `run_${i}`, jobId: job.id, status: 'failed', scheduledAt: now });
      }
      await expect(lifecycle.retryRun(WS, 'run_0', ACTOR)).rejects.toMatchObject({ status: 429 });
    });
  });

  describe('rotate-signing-secret (any state, webhook jobs)', () => {
    it('should add a new secret beside the old one (24 h), changing neither version nor revision', async () => {
      const job = db.addJob('paused');
      const now = new Date('2026-02-01T00:00:00Z');
      const { job: rotated, signingSecret } = await lifecycle.rotateSigningSecret(WS, job.id, ACTOR, now);
      expect(rotated).toMatchObject({ state: 'paused', version: job.version, revision: job.revision });
      expect(db.stored(job.id)?.signingSecrets).toEqual([
        { secret: signingSecret, expires_at: null },
        { secret: 'whsec_old', expires_at: '2026-02-02T00:00:00.000Z' },
      ]);
      expect(db.tables.audit[0]).toMatchObject({
        action: 'job.rotate_signing_secret',
        details: { previous_secret_expires_at: '2026-02-02T00:00:00.000Z', signing_secrets: 2 },
      });
      expect(temporal.snapshots).toEqual([]);
    });

    it('should refuse a job whose sink is not a webhook (409)', async () => {
      const job = db.addJob('active', { sinkKind: 'command', signingSecrets: [] });
      await expect(lifecycle.rotateSigningSecret(WS, job.id, ACTOR)).rejects.toMatchObject({ status: 409 });
    });
  });

  describe('auto-disable and completion (decisions.md)', () => {
    it('should disable an active job whose failure streak reaches its threshold, audited as system', async () => {
      const job = db.addJob('active', { consecutiveFailures: 2, autoDisableThreshold: 3 });
      db.addRun({ id: 'run_3', jobId: job.id });
      await lifecycle.closeRun({ runId: 'run_3', status: 'failed', finishedAt: new Date() });
      expect(db.stored(job.id)).toMatchObject({
        state: 'disabled',
        disabledReason: 'auto_disabled: 3 consecutive failed runs',
        revision: job.revision + 1,
        version: job.version,
      });
      expect(db.tables.audit).toEqual([
        {
          workspaceId: WS,
          actor: 'system',
          action: 'job.auto_disable',
          target: job.id,
          details: { consecutive_failures: 3, run_id: 'run_3' },
        },
      ]);
      expect(temporal.toldOf(job.id)).toEqual([
        { state: 'disabled', revision: job.revision + 1, version: job.version },
      ]);
    });

    it('should not disable below the threshold, nor a job whose threshold is 0', async () => {
      const below = db.addJob('active', { consecutiveFailures: 0, autoDisableThreshold: 3 });
      const never = db.addJob('active', { consecutiveFailures: 50, autoDisableThreshold: 0 });
      db.addRun({ id: 'run_a', jobId: below.id });
      db.addRun({ id: 'run_b', jobId: never.id });
      await lifecycle.closeRun({ runId: 'run_a', status: 'failed', finishedAt: new Date() });
      await lifecycle.closeRun({ runId: 'run_b', status: 'failed', finishedAt: new Date() });
      expect(db.stored(below.id)?.state).toBe('active');
      expect(db.stored(never.id)?.state).toBe('active');
      expect(temporal.snapshots).toEqual([]);
    });

    it('should complete an active job at the revision its workflow runs on, and not at an older one', async () => {
      const stale = db.addJob('active');
      await lifecycle.markCompleted(stale.id, stale.revision - 1);
      expect(db.stored(stale.id)).toMatchObject({ state: 'active', revision: stale.revision });

      await lifecycle.markCompleted(stale.id, stale.revision);
      expect(db.stored(stale.id)).toMatchObject({ state: 'completed', revision: stale.revision + 1 });
      expect(db.tables.audit).toEqual([
        { workspaceId: WS, actor: 'system', action: 'job.complete', target: stale.id, details: {} },
      ]);
    });

    it.each(['paused', 'disabled', 'completed'] as const)('should not complete a %s job', async (state) => {
      const job = db.addJob(state);
      await lifecycle.markCompleted(job.id, job.revision);
      expect(db.stored(job.id)?.state).toBe(state);
    });
  });

  it('should raise the revision by one per change (the one revision rule)', async () => {
    expect(nextRevision({ revision: 7 })).toBe(8);
    const { job } = await lifecycle.create(WS, ACTOR, settings(), { plan });
    await lifecycle.transition(WS, job.id, 'pause', ACTOR);
    await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('x'));
    await lifecycle.transition(WS, job.id, 'resume', ACTOR);
    await settle();
    expect(temporal.toldOf(job.id)).toEqual([
      { state: 'active', revision: 1, version: 1 },
      { state: 'paused', revision: 2, version: 1 },
      { state: 'paused', revision: 3, version: 2 },
      { state: 'active', revision: 4, version: 2 },
    ]);
  });

  describe('the retried follow-up (fake timers)', () => {
    beforeEach(() => {
      jest.useFakeTimers();
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    it('should answer a pause while Temporal is down, and tell the workflow within seconds of its return', async () => {
      const job = db.addJob('active');
      temporal.down = true;
      const paused = await lifecycle.transition(WS, job.id, 'pause', ACTOR);
      expect(paused.state).toBe('paused');
      expect(temporal.snapshots).toEqual([]);
      await jest.advanceTimersByTimeAsync(5_000); // tries at 1 s and 3 s fail too
      temporal.down = false;
      await jest.advanceTimersByTimeAsync(4_000); // the next try, at 7 s
      expect(temporal.toldOf(job.id)).toEqual([{ state: 'paused', revision: job.revision + 1, version: job.version }]);
    });

    it.each([
      ['resume', 'paused'],
      ['enable', 'disabled'],
    ] as const)('should retry a %s the same way', async (change, from) => {
      const job = db.addJob(from);
      temporal.down = true;
      await lifecycle.transition(WS, job.id, change, ACTOR);
      temporal.down = false;
      await jest.advanceTimersByTimeAsync(1_000);
      expect(temporal.toldOf(job.id)).toEqual([{ state: 'active', revision: job.revision + 1, version: job.version }]);
    });

    it('should retry an auto-disable the same way', async () => {
      const job = db.addJob('active', { consecutiveFailures: 2, autoDisableThreshold: 3 });
      db.addRun({ id: 'run_3', jobId: job.id });
      temporal.down = true;
      await lifecycle.closeRun({ runId: 'run_3', status: 'failed', finishedAt: new Date() });
      temporal.down = false;
      await jest.advanceTimersByTimeAsync(1_000);
      expect(temporal.toldOf(job.id)).toEqual([
        { state: 'disabled', revision: job.revision + 1, version: job.version },
      ]);
    });

    it('should send the job as it now is on a retry, and nothing once it is deleted', async () => {
      const job = db.addJob('active');
      temporal.down = true;
      await lifecycle.transition(WS, job.id, 'pause', ACTOR);
      await lifecycle.update(WS, job.id, ACTOR, descriptionEdit('x'));
      temporal.down = false;
      await jest.advanceTimersByTimeAsync(1_000);
      // The PATCH's follow-up took over from the pause's: one snapshot, the newest.
      expect(temporal.toldOf(job.id)).toEqual([
        { state: 'paused', revision: job.revision + 2, version: job.version + 1 },
      ]);

      temporal.down = true;
      await lifecycle.transition(WS, job.id, 'resume', ACTOR);
      await lifecycle.delete(WS, job.id, ACTOR);
      temporal.down = false;
      await jest.advanceTimersByTimeAsync(60_000);
      expect(temporal.toldOf(job.id)).toHaveLength(1);
      expect(temporal.deleted).toEqual([job.id]);
    });
  });
});
