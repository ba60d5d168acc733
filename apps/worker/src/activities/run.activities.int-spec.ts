import { newId } from '@svc/workflow-contract/ids';
import { JobLifecycle } from '@svc/orchestration';
import {
  AttemptEntity,
  AuditRepository,
  createDataSource,
  JobEntity,
  JobsRepository,
  RunEntity,
  RunsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import type { RunActivities } from '@svc/workflow-contract/activity-types';
import type { RunWorkflowInput } from '@svc/workflow-contract/definitions';
import { ActivityCancellationDetails, ApplicationFailure } from '@temporalio/common';
import { waitFor } from '../../../../test/utils/receiver';
import {
  type ActivityHarness,
  quietActivityEnvironment,
  runActivitiesOf,
  runInputOf,
  startActivityHarness,
  TEST_RETRY,
} from '../../test/activity-harness';

/**
 * The attempt activity over a real database and a real loopback receiver, in Temporal's mock
 * activity context: claim, misfire rule, attempt rows, classification, closing and deferring.
 */
describe('run activities', () => {
  let h: ActivityHarness;
  let activities: RunActivities;

  beforeAll(async () => {
    h = await startActivityHarness();
    activities = runActivitiesOf(h);
  });

  afterAll(async () => {
    await h?.stop();
  });

  function attempt(input: RunWorkflowInput) {
    return quietActivityEnvironment().run(activities.runAttempt, input);
  }

  /** The failure `runAttempt` throws for a retryable outcome (and null when it did not throw). */
  async function retryFailure(input: RunWorkflowInput): Promise<ApplicationFailure> {
    const err = await attempt(input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }

  const run = (id: string) => h.ds.manager.findOneByOrFail(RunEntity, { id });
  const attemptsOf = (runId: string) => h.ds.manager.find(AttemptEntity, { where: { runId }, order: { n: 'ASC' } });
  const jobRow = (id: string) => h.ds.manager.findOneByOrFail(JobEntity, { id });
  const requestsTo = (path: string) => h.receiver.requests.filter((r) => r.url === path);

  it('should deliver, record the attempt and close the run and the job on success', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/ok-1` } });
    const row = await h.openRun(job);
    const host = new URL(h.receiver.url).host;
    // The result names the attempt and its target for the Temporal Web UI: method and host only.
    await expect(attempt(runInputOf(row))).resolves.toEqual({
      status: 'succeeded',
      outcome: `attempt 1 of ${job.retry.max_attempts} · POST ${host} → HTTP 200`,
    });

    const closed = await run(row.id);
    expect(closed).toMatchObject({ status: 'succeeded', attemptsCount: 1, nextAttemptAt: null, lastError: null });
    expect(closed.startedAt).not.toBeNull();
    expect(closed.finishedAt).not.toBeNull();
    const [only, ...rest] = await attemptsOf(row.id);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ n: 0, outcome: 'success', statusCode: 200, error: null, responseBody: null });
    expect(only.finishedAt).not.toBeNull();
    expect(only.requestSummary).toContain('/ok-1');
    expect(await jobRow(job.id)).toMatchObject({ lastRunStatus: 'succeeded', consecutiveFailures: 0 });
    const [request] = requestsTo('/ok-1');
    expect(request.headers['webhook-id']).toBe(row.id);
    expect(request.headers['svc-attempt']).toBe('0');

    // A re-executed activity (at-least-once) finds the run closed and sends nothing.
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
    expect(requestsTo('/ok-1')).toHaveLength(1);
  });

  it('should fail the run at once on a fatal response and add one to the failure streak', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/missing` }, consecutiveFailures: 2 });
    const row = await h.openRun(job);
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'failed' });

    expect(await run(row.id)).toMatchObject({ status: 'failed', attemptsCount: 1, lastError: 'HTTP 404' });
    expect(await attemptsOf(row.id)).toEqual([
      expect.objectContaining({ n: 0, outcome: 'fatal', statusCode: 404, responseBody: 'no such hook' }),
    ]);
    expect(await jobRow(job.id)).toMatchObject({ lastRunStatus: 'failed', consecutiveFailures: 3, state: 'active' });
  });

  it('should defer the run and throw with the next-retry delay on a retryable outcome with attempts left', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/busy` } });
    const row = await h.openRun(job);
    const failure = await retryFailure(runInputOf(row));
    expect(failure).toMatchObject({
      type: 'RetryableDelivery',
      message: `attempt 1 of ${job.retry.max_attempts} · POST ${new URL(h.receiver.url).host} → HTTP 503`,
      nonRetryable: false,
    });
    // exponential, initial 1 s, jitter 0 → the first retry waits 1 s.
    expect(failure.nextRetryDelay).toBe(1_000);

    const deferred = await run(row.id);
    expect(deferred).toMatchObject({ status: 'deferred', attemptsCount: 1, lastError: 'HTTP 503' });
    const [first] = await attemptsOf(row.id);
    expect(first).toMatchObject({ n: 0, outcome: 'retryable', statusCode: 503, responseBody: 'busy' });
    expect(deferred.nextAttemptAt!.getTime() - first.finishedAt!.getTime()).toBe(1_000);
    expect((await jobRow(job.id)).lastRunStatus).toBeNull();

    // The second attempt waits twice as long.
    expect((await retryFailure(runInputOf(row))).nextRetryDelay).toBe(2_000);
    expect(await run(row.id)).toMatchObject({ status: 'deferred', attemptsCount: 2 });
  });

  it('should honour Retry-After in the next-retry delay', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/throttled` } });
    const row = await h.openRun(job);
    expect((await retryFailure(runInputOf(row))).nextRetryDelay).toBe(3_000);
  });

  it('should fail the run on a retryable outcome of the last attempt', async () => {
    const job = await h.insertJob({
      sinkConfig: { url: `${h.receiver.url}/busy` },
      retry: { ...TEST_RETRY, max_attempts: 2 },
    });
    const row = await h.openRun(job);
    await retryFailure(runInputOf(row));
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'failed' });

    expect(await run(row.id)).toMatchObject({
      status: 'failed',
      attemptsCount: 2,
      nextAttemptAt: null,
      lastError: 'HTTP 503 (after 2 attempts)',
    });
    expect((await attemptsOf(row.id)).map((a) => [a.n, a.outcome])).toEqual([
      [0, 'retryable'],
      [1, 'retryable'],
    ]);
    expect(await jobRow(job.id)).toMatchObject({ lastRunStatus: 'failed', consecutiveFailures: 1 });
  });

  it('should close an attempt left open by a crash as interrupted and count it', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/ok-2` } });
    const row = await h.openRun(job);
    // A worker died mid-request: the attempt row was written, never finished.
    await h.runs.startAttempt(await run(row.id), 0, new Date(Date.now() - 5_000), 'POST /ok-2');
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });

    expect(await run(row.id)).toMatchObject({ status: 'succeeded', attemptsCount: 2 });
    const [interrupted, next] = await attemptsOf(row.id);
    expect(interrupted).toMatchObject({ n: 0, outcome: 'retryable', error: 'interrupted' });
    expect(interrupted.finishedAt).not.toBeNull();
    expect(interrupted.durationMs).toBeGreaterThanOrEqual(4_000);
    expect(next).toMatchObject({ n: 1, outcome: 'success' });
    expect(requestsTo('/ok-2').map((r) => r.headers['svc-attempt'])).toEqual(['1']);
  });

  /** A one-attempt job's run whose only attempt (to `path`) was started and never finished, then claimed again. */
  async function interruptedLastAttempt(path: string) {
    const job = await h.insertJob({
      sinkConfig: { url: `${h.receiver.url}${path}` },
      retry: { ...TEST_RETRY, max_attempts: 1 },
    });
    const row = await h.openRun(job);
    await h.runs.startAttempt(await run(row.id), 0, new Date(), `POST ${path}`);
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'failed' });
    return { job, row };
  }

  it('should fail the run when the interrupted attempt was its last', async () => {
    const { job, row } = await interruptedLastAttempt('/ok-3');

    expect(await run(row.id)).toMatchObject({ status: 'failed', lastError: 'interrupted (after 1 attempts)' });
    expect(requestsTo('/ok-3')).toHaveLength(0);
    expect(await jobRow(job.id)).toMatchObject({ lastRunStatus: 'failed', consecutiveFailures: 1 });
  });

  // Regression: claim() used to fail the run but leave its interrupted last attempt open for good.
  it('should close the interrupted last attempt when it fails the run', async () => {
    const { row } = await interruptedLastAttempt('/ok-4');
    const [interrupted] = await attemptsOf(row.id);
    expect(interrupted).toMatchObject({ n: 0, outcome: 'retryable', error: 'interrupted' });
    expect(interrupted.finishedAt).not.toBeNull();
  });

  describe('a first attempt later than the misfire threshold', () => {
    const late = () => new Date(Date.now() - 5 * 60_000).toISOString();

    it('should be skipped under misfire_policy skip', async () => {
      const job = await h.insertJob({ misfirePolicy: 'skip', sinkConfig: { url: `${h.receiver.url}/late-skip` } });
      const row = await h.openRun(job, { scheduledAt: late() });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'skipped' });
      expect(await run(row.id)).toMatchObject({ status: 'skipped', skipReason: 'misfire', attemptsCount: 0 });
      expect(await attemptsOf(row.id)).toEqual([]);
      expect(requestsTo('/late-skip')).toHaveLength(0);
      expect((await jobRow(job.id)).lastRunStatus).toBeNull();
    });

    it('should be delivered under fire_once when no later occurrence has a run', async () => {
      const job = await h.insertJob({ misfirePolicy: 'fire_once', sinkConfig: { url: `${h.receiver.url}/late-once` } });
      const row = await h.openRun(job, { scheduledAt: late() });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
      expect(requestsTo('/late-once')).toHaveLength(1);
    });

    it('should be skipped under fire_once when a later occurrence has a run', async () => {
      const job = await h.insertJob({
        misfirePolicy: 'fire_once',
        sinkConfig: { url: `${h.receiver.url}/late-once-2` },
      });
      const row = await h.openRun(job, { scheduledAt: late() });
      await h.openRun(job, { scheduledAt: new Date(Date.now() - 60_000).toISOString() });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'skipped' });
      expect(await run(row.id)).toMatchObject({ status: 'skipped', skipReason: 'misfire' });
      expect(requestsTo('/late-once-2')).toHaveLength(0);
    });

    it('should be delivered under fire_all', async () => {
      const job = await h.insertJob({ misfirePolicy: 'fire_all', sinkConfig: { url: `${h.receiver.url}/late-all` } });
      const row = await h.openRun(job, { scheduledAt: late() });
      await h.openRun(job, { scheduledAt: new Date(Date.now() - 60_000).toISOString() });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
      expect(requestsTo('/late-all')).toHaveLength(1);
    });

    it('should be measured from its release when it waited in the queue, and never for a manual run', async () => {
      const job = await h.insertJob({ misfirePolicy: 'skip', sinkConfig: { url: `${h.receiver.url}/late-released` } });
      const queued = await h.openRun(job, { scheduledAt: late() });
      await expect(attempt({ ...runInputOf(queued), releasedAt: new Date().toISOString() })).resolves.toMatchObject({
        status: 'succeeded',
      });
      const manual = await h.openRun(job, { scheduledAt: late(), trigger: 'manual' });
      await expect(attempt({ ...runInputOf(manual), trigger: 'manual' })).resolves.toMatchObject({
        status: 'succeeded',
      });
      expect(requestsTo('/late-released')).toHaveLength(2);
    });

    it('should not apply to a retry (attempt after the first)', async () => {
      const job = await h.insertJob({ misfirePolicy: 'skip', sinkConfig: { url: `${h.receiver.url}/late-retry` } });
      const row = await h.openRun(job);
      await h.runs.startAttempt(await run(row.id), 0, new Date(), 'POST /late-retry');
      await h.ds.query(`UPDATE runs SET scheduled_at = $2 WHERE id = $1`, [row.id, late()]);
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
    });
  });

  describe('a run opened ahead of its occurrence (scheduler.prepare_ahead)', () => {
    const usageRuns = async (workspaceId: string): Promise<number> => {
      const rows: Array<{ runs: number }> = await h.ds.query(
        `SELECT runs FROM usage_counters WHERE workspace_id = $1 AND month = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`,
        [workspaceId],
      );
      return rows[0]?.runs ?? 0;
    };

    it('should send the request no earlier than the scheduled instant', async () => {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/ahead` } });
      const scheduledAt = new Date(Date.now() + 700);
      const row = await h.openRun(job, { scheduledAt });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
      const [request] = requestsTo('/ahead');
      expect(request.at).toBeGreaterThanOrEqual(scheduledAt.getTime());
      const closed = await run(row.id);
      expect(closed.startedAt!.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
      expect(closed.claimedAt!.getTime()).toBeLessThan(scheduledAt.getTime());
    });

    it('should not heartbeat while it waits for its instant, and heartbeat while it works after it', async () => {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/slow-after-wait` } });
      const scheduledAt = new Date(Date.now() + 4_500);
      const row = await h.openRun(job, { scheduledAt });
      const env = quietActivityEnvironment();
      const beats: number[] = [];
      env.on('heartbeat', () => beats.push(Date.now()));
      await expect(env.run(activities.runAttempt, runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
      // Two intervals passed in the wait without a beat; the 2 s request after it has one.
      expect(beats.filter((at) => at < scheduledAt.getTime())).toHaveLength(0);
      expect(beats.length).toBeGreaterThanOrEqual(1);
    });

    it.each([
      ['paused', { state: 'paused' }],
      ['disabled', { state: 'disabled' }],
      ['given a new version', { version: 2 }],
    ] as const)(
      'should withdraw the run, uncounted and unsent, when the job was %s before the instant',
      async (_, change) => {
        const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/withdrawn-${_}` } });
        const before = await usageRuns(job.workspaceId);
        const row = await h.openRun(job, { scheduledAt: new Date(Date.now() + 300) });
        expect(await usageRuns(job.workspaceId)).toBe(before + 1);
        await h.ds.manager.update(JobEntity, { id: job.id }, change);
        await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'cancelled' });
        expect(await h.ds.manager.findOneBy(RunEntity, { id: row.id })).toBeNull();
        expect(await usageRuns(job.workspaceId)).toBe(before);
        expect(requestsTo(`/withdrawn-${_}`)).toHaveLength(0);
      },
    );

    it('should release a burst at its shared instant, never early, reading and recording it together', async () => {
      const jobs = await Promise.all(
        Array.from({ length: 24 }, (_, i) => h.insertJob({ sinkConfig: { url: `${h.receiver.url}/burst-${i}` } })),
      );
      const scheduledAt = new Date(Date.now() + 1_500);
      const rows = await Promise.all(jobs.map((job) => h.openRun(job, { scheduledAt })));
      // One of them paused while the burst waits: withdrawn inside the same batch.
      await h.ds.manager.update(JobEntity, { id: jobs[0].id }, { state: 'paused' });
      const starts = jest.spyOn(h.runs, 'startAttempts');
      const reads = jest.spyOn(h.jobs, 'findManyWithSecretsUnscoped');
      try {
        const results = await Promise.all(rows.map((row) => attempt(runInputOf(row))));
        expect(results.map((r) => (r as { status: string }).status)).toEqual([
          'cancelled',
          ...rows.slice(1).map(() => 'succeeded'),
        ]);
        // Fewer statements than attempts: those released in the same turn shared each one.
        expect(reads.mock.calls.length).toBeLessThan(rows.length);
        expect(starts.mock.calls.length).toBeLessThan(rows.length - 1);
        expect(starts.mock.calls.flatMap(([batch]) => batch.map((s) => s.run.id)).sort()).toEqual(
          rows
            .slice(1)
            .map((r) => r.id)
            .sort(),
        );
      } finally {
        starts.mockRestore();
        reads.mockRestore();
      }
      expect(requestsTo('/burst-0')).toHaveLength(0);
      for (const [i, row] of rows.entries()) {
        if (i === 0) {
          continue;
        }
        const [request] = requestsTo(`/burst-${i}`);
        expect(request.at).toBeGreaterThanOrEqual(scheduledAt.getTime());
        const closed = await run(row.id);
        expect(closed).toMatchObject({ status: 'succeeded', attemptsCount: 1 });
        expect(closed.startedAt!.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
        expect(closed.startLagMs).toBe(closed.startedAt!.getTime() - scheduledAt.getTime());
        const [first] = await attemptsOf(row.id);
        expect(first).toMatchObject({ n: 0, outcome: 'success' });
        expect(first.startedAt.getTime()).toBe(closed.startedAt!.getTime());
      }
    });

    it('should deliver an occurrence whose attempt starts after its instant, whatever happened since', async () => {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/backlogged` } });
      const row = await h.openRun(job, { scheduledAt: new Date(Date.now() + 200) });
      await new Promise((resolve) => setTimeout(resolve, 400));
      await h.ds.manager.update(JobEntity, { id: job.id }, { state: 'paused' });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
      expect(requestsTo('/backlogged')).toHaveLength(1);
    });

    it('should still deliver the last occurrence of a job that completed meanwhile', async () => {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/last-one` } });
      const row = await h.openRun(job, { scheduledAt: new Date(Date.now() + 300) });
      await h.ds.manager.update(JobEntity, { id: job.id }, { state: 'completed' });
      await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
      expect(requestsTo('/last-one')).toHaveLength(1);
    });
  });

  describe('an attempt cancelled while its request is on the wire', () => {
    /** Starts an attempt to a receiver that answers in 2 s and cancels it once the request arrived. */
    async function cancelledOnTheWire(path: string, details: ActivityCancellationDetails) {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}${path}` } });
      const row = await h.openRun(job);
      const env = quietActivityEnvironment();
      const running = env.run(activities.runAttempt, runInputOf(row)).then(
        (result) => ({ result, error: null }),
        (error: unknown) => ({ result: null, error }),
      );
      await waitFor(() => requestsTo(path).length === 1, 10_000);
      env.cancel(details.cancelRequested ? 'CANCELLED' : 'TIMED_OUT', details);
      return { row, outcome: await running };
    }

    it('should end the run as cancelled when the cancel was asked (a delete, cancel_previous)', async () => {
      const { row, outcome } = await cancelledOnTheWire(
        '/slow-asked',
        new ActivityCancellationDetails({ cancelRequested: true }),
      );
      expect(outcome.result).toMatchObject({ status: 'cancelled' });
      expect(await run(row.id)).toMatchObject({ status: 'cancelled' });
    });

    it('should leave the run open for the next try when Temporal gave the attempt up (timed out, worker shutdown)', async () => {
      for (const [path, details] of [
        ['/slow-timed-out', new ActivityCancellationDetails({ timedOut: true })],
        ['/slow-shutdown', new ActivityCancellationDetails({ workerShutdown: true })],
      ] as const) {
        const { row, outcome } = await cancelledOnTheWire(path, details);
        expect(outcome.error).toBeInstanceOf(ApplicationFailure);
        expect(outcome.error).toMatchObject({ type: 'AttemptInterrupted', nonRetryable: false });
        // Open: the next try closes the attempt as interrupted (if recorded) and sends again.
        expect(await run(row.id)).toMatchObject({ status: 'running' });
        await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'succeeded' });
        expect(requestsTo(path)).toHaveLength(2);
      }
    });
  });

  it('should cancel the run when its job was deleted', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/deleted` } });
    const row = await h.openRun(job);
    await h.ds.query(`DELETE FROM jobs WHERE id = $1`, [job.id]);
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'cancelled' });
    expect(await run(row.id)).toMatchObject({ status: 'cancelled', attemptsCount: 0 });
    expect(requestsTo('/deleted')).toHaveLength(0);
  });

  it('should fail the run when the command sink is disabled on this server', async () => {
    expect(h.config.sinks.command.enabled).toBe(false);
    const job = await h.insertJob({ sinkKind: 'command', sinkConfig: { argv: ['true'] } });
    const row = await h.openRun(job);
    await expect(attempt(runInputOf(row))).resolves.toMatchObject({ status: 'failed' });
    expect(await run(row.id)).toMatchObject({
      status: 'failed',
      lastError: 'the command sink is disabled on this server',
    });
    expect(await attemptsOf(row.id)).toEqual([expect.objectContaining({ n: 0, outcome: 'fatal', statusCode: null })]);
  });

  it('should write the run row itself when the opening write was lost', async () => {
    const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/lost-row` } });
    const input = runInputOf({
      id: newId('run'),
      jobId: job.id,
      workspaceId: job.workspaceId,
      scheduledAt: new Date(),
    });
    await expect(attempt(input)).resolves.toMatchObject({ status: 'succeeded' });
    expect(await run(input.runId)).toMatchObject({ status: 'succeeded', jobId: job.id, trigger: 'schedule' });
  });

  describe('the database lost after the request left (docs/operations.md → Faults)', () => {
    const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

    /** The attempt activity over a lifecycle whose `closeRun` first throws `errors`, in order. */
    function withFailingClose(errors: Error[]): RunActivities {
      const lifecycle = Object.create(h.lifecycle) as typeof h.lifecycle;
      lifecycle.closeRun = async (input) => {
        const err = errors.shift();
        if (err) {
          throw err;
        }
        return h.lifecycle.closeRun(input);
      };
      return runActivitiesOf(h, lifecycle);
    }

    it('should record the outcome once the database is back, without sending again', async () => {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/db-back` } });
      const row = await h.openRun(job);
      const flaky = withFailingClose([unavailable(), unavailable()]);
      await expect(quietActivityEnvironment().run(flaky.runAttempt, runInputOf(row))).resolves.toMatchObject({
        status: 'succeeded',
      });
      expect(requestsTo('/db-back')).toHaveLength(1);
      expect(await run(row.id)).toMatchObject({ status: 'succeeded', attemptsCount: 1 });
      expect(await attemptsOf(row.id)).toEqual([expect.objectContaining({ n: 0, outcome: 'success' })]);
    });

    it('should still fail the activity on any other error', async () => {
      const job = await h.insertJob({ sinkConfig: { url: `${h.receiver.url}/db-refused` } });
      const row = await h.openRun(job);
      const flaky = withFailingClose([new Error('value too long for type character varying(64)')]);
      await expect(quietActivityEnvironment().run(flaky.runAttempt, runInputOf(row))).rejects.toThrow('value too long');
      expect(requestsTo('/db-refused')).toHaveLength(1);
    });
  });

  it('should close a run that ends outside an attempt once (finishRun)', async () => {
    const job = await h.insertJob();
    const row = await h.openRun(job);
    const env = quietActivityEnvironment();
    await env.run(activities.finishRun, { runId: row.id, status: 'cancelled' as const });
    await env.run(activities.finishRun, { runId: row.id, status: 'failed' as const, error: 'late' });
    expect(await run(row.id)).toMatchObject({ status: 'cancelled', lastError: null });
    expect((await jobRow(job.id)).lastRunStatus).toBeNull();
  });

  it('should close more runs at once than the connection pool holds (every query on the transaction)', async () => {
    const small = await createDataSource(h.databaseUrl, { poolSize: 2 }).initialize();
    try {
      const lifecycle = new JobLifecycle({
        dataSource: small,
        jobs: new JobsRepository(small),
        runs: new RunsRepository(small),
        audit: new AuditRepository(small),
        workspaces: new WorkspacesRepository(small),
        gateway: h.gateway,
        config: h.config,
      });
      const job = await h.insertJob();
      const rows = await Promise.all(Array.from({ length: 6 }, () => h.openRun(job)));
      await Promise.all(
        rows.map((row) => lifecycle.closeRun({ runId: row.id, status: 'succeeded', finishedAt: new Date() })),
      );
      for (const row of rows) {
        expect((await run(row.id))?.status).toBe('succeeded');
      }
    } finally {
      await small.destroy();
    }
  });
});
