import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { addLogFields } from '@svc/common/logging';
import { destinationOf, type SinkAttemptResult, summarizeSink, toSink, withRunOverrides } from '@svc/delivery';
import { isDatabaseUnavailable, type JobEntity, type RunEntity } from '@svc/persistence';
import { type DestinationGate, type SinkSender, sinkTarget } from '@svc/orchestration';
import { decideClaim, decideOutcome, endedStatus } from '@svc/workflow-contract/run-rules';
import type {
  DestinationWaitDetails,
  FinishRunInput,
  RetryableDeliveryDetails,
  RunActivities,
  RunAttemptResult,
} from '@svc/workflow-contract/activity-types';
import { attemptStartedSignal, DESTINATION_WAIT, type RunWorkflowInput } from '@svc/workflow-contract/definitions';
import { attemptOutcome } from '@svc/workflow-contract/display';
import type { CoreActivityDeps } from './activity-deps';
import { byIdLoader, Coalescer } from './coalescer';

const HEARTBEAT_EVERY_MS = 2_000;

/**
 * Heartbeats of one attempt from its start to its end, paused while it waits for its instant
 * (that wait is covered by its heartbeat timeout instead). A claim queued behind a burst's
 * statements must not outlast the 10 s timeout, or Temporal gives the attempt up while it works.
 * The SDK sends nothing for an attempt shorter than the interval.
 */
class AttemptPulse {
  private waiting = false;
  private readonly timer: NodeJS.Timeout;

  constructor(context: Context) {
    this.timer = setInterval(() => {
      if (!this.waiting) {
        context.heartbeat();
      }
    }, HEARTBEAT_EVERY_MS);
  }

  async during<T>(wait: () => Promise<T>): Promise<T> {
    this.waiting = true;
    try {
      return await wait();
    } finally {
      this.waiting = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Cancelled because someone asked (overlap `cancel_previous`, a delete, a user), as opposed to a
 * worker shutting down or Temporal having given the attempt up (timed out, reset, paused): only
 * the first ends the run as cancelled. Without details (older servers) a cancel is taken as asked.
 */
function cancelAsked(context: Context): boolean {
  return context.cancellationSignal.aborted && (context.cancellationDetails?.cancelRequested ?? true);
}
/** Longest pause between two tries of recording a sent attempt while the database is away. */
const RECORD_RETRY_MAX_MS = 4_000;

export interface RunActivityDeps extends CoreActivityDeps {
  /** Sends the sink: secrets decrypted at send time, signing, network rules. */
  sender: SinkSender;
  random: () => number;
  /** Destination limits; absent in tests that set none. */
  destinations?: DestinationGate;
}

/** What the claim step found: an attempt to make, or a run that ends without one. */
type Claim =
  | { kind: 'attempt'; run: RunEntity; job: JobEntity; n: number; atInstant: boolean }
  | { kind: 'closed'; result: RunAttemptResult };

/**
 * The run's delivery, one activity execution per attempt: claim (the run row, the job, the
 * misfire rule on the first attempt), record the attempt (before the request leaves in `safe`
 * mode), send, then close the run or defer it. The attempt number is the run's own counter, so a
 * database or worker error before the attempt is recorded consumes no attempt. What to do at the
 * claim and after the send is decided by the pure run rules (libs/workflow-contract/src/run-rules.ts);
 * this activity reads and writes around them.
 */
export function createRunActivities(deps: RunActivityDeps): RunActivities {
  const { jobs, runs, lifecycle, sender, config, clock, random, metrics, destinations } = deps;
  const safeMode = config.scheduler.delivery_mode === 'safe';
  // Attempts released at their instant (a burst prepared ahead) read and record together: one
  // statement per kind for all those released in the same turn of the event loop.
  const atInstant = {
    runs: byIdLoader((ids) => runs.findManyUnscoped(ids)),
    jobs: byIdLoader((ids) => jobs.findManyWithSecretsUnscoped(ids)),
    starts: new Coalescer<{ run: RunEntity; n: number; startedAt: Date; requestSummary: string }, void>(
      async (starts) => {
        await runs.startAttempts(starts);
        return starts.map(() => undefined);
      },
    ),
  };

  async function close(
    runId: string,
    result: RunAttemptResult,
    extra: { error?: string; skipReason?: string; skipNote?: string } = {},
  ) {
    await lifecycle.closeRun({ runId, status: result.status, finishedAt: clock(), ...extra });
    return result;
  }

  async function claim(input: RunWorkflowInput, context: Context, pulse: AttemptPulse): Promise<Claim> {
    let run = await runs.findByIdUnscoped(input.runId);
    if (!run) {
      // Rows are written when the occurrence is due (or by the API); this covers a lost write.
      await runs.openRuns(
        [{ ...input, id: input.runId, status: input.skipReason ? 'skipped' : 'running', skipReason: input.skipReason }],
        clock(),
      );
      run = await runs.findByIdUnscoped(input.runId);
    }
    const ended = endedStatus(run);
    if (!run || ended !== null) {
      return { kind: 'closed', result: { status: ended ?? 'cancelled' } };
    }
    const waited = await pulse.during(() => untilScheduled(run, context));
    const now = clock();
    // At the instant the run is read again: a newer job version that reached the same
    // occurrence has adopted the row (openRuns) and this attempt delivers it under that version.
    const [job, atTheInstant] = waited
      ? await Promise.all([atInstant.jobs.call(run.jobId), atInstant.runs.call(run.id)])
      : [await jobs.findWithSecretsUnscoped(run.jobId), run];
    let laterOccurrenceHasRun: boolean | undefined;
    for (;;) {
      const decision = decideClaim({
        run: atTheInstant,
        job,
        waitedForInstant: waited,
        trigger: input.trigger,
        releasedAt: input.releasedAt,
        now,
        misfireThresholdMs: config.scheduler.misfire_threshold_ms,
        laterOccurrenceHasRun,
      });
      switch (decision.kind) {
        case 'read_later_occurrence':
          laterOccurrenceHasRun = await runs.hasLaterScheduledRun(run);
          continue;
        case 'ended':
          return { kind: 'closed', result: { status: decision.status } };
        case 'cancel':
          return { kind: 'closed', result: await close(run.id, { status: 'cancelled' }) };
        case 'withdraw':
          if (await runs.deleteUnstarted(run.workspaceId, run.id, decision.run.jobVersion)) {
            return { kind: 'closed', result: { status: 'cancelled' } };
          }
          // Adopted by a newer version in the meantime: decide again on the row as it is now.
          return claim(input, context, pulse);
        case 'exhausted':
          await runs.closeInterruptedAttempts(run.id, now);
          return { kind: 'closed', result: await close(run.id, { status: 'failed' }, { error: decision.error }) };
        case 'skipped_by_user':
          return {
            kind: 'closed',
            result: await close(
              run.id,
              { status: 'skipped' },
              { skipReason: 'occurrence_skipped', skipNote: decision.note },
            ),
          };
        case 'misfire':
          return { kind: 'closed', result: await close(run.id, { status: 'skipped' }, { skipReason: 'misfire' }) };
        case 'attempt':
          return { kind: 'attempt', run: decision.run, job: decision.job, n: decision.n, atInstant: waited };
      }
    }
  }

  /**
   * Waits for the scheduled instant of a first attempt opened ahead of it (`scheduler.prepare_ahead`).
   * It does not heartbeat: the run workflow gave this activity a heartbeat timeout that covers the
   * wait, and a job deleted meanwhile is seen in the database when the run is read again at the
   * instant. A worker shutting down still cancels the sleep. True if it had to wait.
   */
  async function untilScheduled(run: RunEntity, context: Context): Promise<boolean> {
    if (run.attemptsCount > 0 || run.trigger !== 'schedule') {
      return false;
    }
    // A job with a start window fires at the run's planned time.
    const instant = (run.plannedAt ?? run.scheduledAt).getTime();
    let waitMs = instant - clock().getTime();
    const waited = waitMs > 0;
    while (waitMs > 0) {
      await context.sleep(waitMs);
      waitMs = instant - clock().getTime();
    }
    return waited;
  }

  /**
   * Records what a request that has left produced. Were a database outage to fail the activity
   * here, Temporal's retry would send the request again; so the write is retried in place,
   * heartbeating, until the database is back (docs/operations.md → Faults). The activity's
   * heartbeat and start-to-close timeouts still bound it; any other error fails it as before.
   */
  async function record<T>(context: Context, n: number, write: () => Promise<T>): Promise<T> {
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, RECORD_RETRY_MAX_MS)) {
      try {
        return await write();
      } catch (err) {
        if (!isDatabaseUnavailable(err)) {
          throw err;
        }
        context.log.warn('database unavailable; recording the attempt again shortly', {
          error: (err as Error).message,
        });
        context.heartbeat({ n });
        await context.sleep(delayMs);
      }
    }
  }

  /**
   * Tells the run workflow a retry began, so its current details in the Web UI follow the attempt
   * (Temporal's activity retry does not wake it). Best effort: the attempt goes on without it.
   */
  async function announceRetry(context: Context, runId: string, attempt: number, previous: string | null) {
    try {
      // Workflow id = run id.
      await context.client.workflow
        .getHandle(runId)
        .signal(attemptStartedSignal, { attempt, previous: previous ?? null });
    } catch (err) {
      context.log.debug('could not announce the retry to the run workflow', { error: (err as Error).message });
    }
  }

  /**
   * Takes the destination's lease for attempt `n`, when the job's destination has limits in its
   * workspace (a cached lookup otherwise, nothing more). When the destination makes it wait, the
   * run is `deferred` until the time the lease statement named, with the reason, and the activity
   * fails with `DestinationWait`: the run workflow sleeps it out (an older execution lets Temporal
   * retry it after `nextRetryDelay`). No attempt is recorded, so none is spent.
   */
  async function takeLease(
    run: RunEntity,
    n: number,
    sink: { kind: string; config: Record<string, unknown> },
    timeoutMs: number,
  ): Promise<{ workspaceId: string; destination: string; key: string } | null> {
    if (!destinations) {
      return null;
    }
    const destination = destinationOf(sink.kind, sink.config);
    if (destination === null || !(await destinations.limited(run.workspaceId, destination))) {
      return null;
    }
    const key = `${run.id}:${n}`;
    const answer = await destinations.acquire(run.workspaceId, destination, key, timeoutMs);
    if (answer.kind === 'unlimited') {
      return null;
    }
    if (answer.kind === 'taken') {
      if (run.status === 'deferred' && run.deferredReason && !safeMode) {
        // Safe mode's attempt start does the same in its own statement.
        await runs.endDestinationWait(run.id);
      }
      return { workspaceId: run.workspaceId, destination, key };
    }
    const reason = answer.reason === 'held' ? 'destination_held' : 'destination_limit';
    await runs.deferForDestination(run.id, answer.retryAt, reason, destination);
    metrics?.destinationWaits.inc({ reason });
    const delayMs = Math.max(1, answer.retryAt.getTime() - clock().getTime());
    Context.current().log.info('waiting for the destination; no attempt spent', {
      destination,
      reason,
      retry_in_ms: delayMs,
    });
    throw ApplicationFailure.create({
      type: DESTINATION_WAIT,
      // A wait, not an error: the SDK logs it at debug level and counts no failure metric.
      category: ApplicationFailureCategory.BENIGN,
      message: `waiting for ${destination} (${reason}) until ${answer.retryAt.toISOString()}`,
      nextRetryDelay: delayMs,
      details: [
        { attempts: n, retryAt: answer.retryAt.toISOString(), reason, destination } satisfies DestinationWaitDetails,
      ],
    });
  }

  /**
   * Gives the lease back once the request is done; a 429 or 503 with `Retry-After` holds the
   * destination under `on_429: pause_destination`. Best effort: a lease not given back expires.
   */
  async function giveLeaseBack(
    context: Context,
    lease: { workspaceId: string; destination: string; key: string },
    result: SinkAttemptResult,
  ): Promise<void> {
    try {
      const heldUntil = await destinations!.release(
        lease.workspaceId,
        lease.destination,
        lease.key,
        result.retryAfterMs,
      );
      if (heldUntil) {
        context.log.warn('destination held after Retry-After', {
          destination: lease.destination,
          held_until: heldUntil.toISOString(),
          status_code: result.statusCode,
        });
      }
    } catch (err) {
      context.log.warn('could not give the destination lease back; it expires by itself', {
        error: (err as Error).message,
      });
    }
  }

  return {
    async runAttempt(input: RunWorkflowInput): Promise<RunAttemptResult> {
      const context = Context.current();
      const pulse = new AttemptPulse(context);
      try {
        return await attempt(input, context, pulse);
      } finally {
        pulse.stop();
      }
    },

    async finishRun(input: FinishRunInput): Promise<void> {
      await lifecycle.closeRun({ runId: input.runId, status: input.status, finishedAt: clock(), error: input.error });
    },
  };

  /** One attempt: claim, deliver, record (the run workflow's `runAttempt`). */
  async function attempt(input: RunWorkflowInput, context: Context, pulse: AttemptPulse): Promise<RunAttemptResult> {
    const claimed = await claim(input, context, pulse);
    const firedAt = clock();
    if (claimed.kind === 'closed') {
      context.log.info('run closed without an attempt', { status: claimed.result.status });
      return claimed.result;
    }
    const { run, job, n } = claimed;
    if (n > (input.attemptsBefore ?? 0)) {
      await announceRetry(context, run.id, n + 1, run.lastError);
    }
    // On every later line of this attempt, the SDK's own included (docs/operations.md → Logs).
    addLogFields({ attempt: n });
    const stored = toSink(job.sinkKind, job.sinkConfig);
    if (!stored) {
      return close(run.id, { status: 'failed' }, { error: `unknown sink kind ${job.sinkKind}` });
    }
    // A trigger's, retry's or backfill's one-off change, for this run only (never the job's).
    const sink = withRunOverrides(stored, run.overrides);
    if ('error' in sink) {
      return close(run.id, { status: 'failed' }, { error: sink.error });
    }
    // Destination limits: a lease before the request leaves, or a wait that spends no attempt.
    const lease = await takeLease(run, n, sink, job.timeoutMs);
    if (safeMode) {
      const start = { run, n, startedAt: firedAt, requestSummary: summarizeSink(sink) };
      await (claimed.atInstant
        ? atInstant.starts.call(start)
        : runs.startAttempt(start.run, start.n, start.startedAt, start.requestSummary));
    }
    const result: SinkAttemptResult = await sender.send({
      workspaceId: run.workspaceId,
      sink,
      run: { id: run.id, scheduledAt: run.scheduledAt, plannedAt: run.plannedAt, attempt: n },
      job: { id: job.id, name: job.name },
      signingSecrets: job.signingSecrets,
      nowMs: firedAt.getTime(),
      timeoutMs: job.timeoutMs,
      // overlap `cancel_previous` and job deletion cancel the attempt; a sink that started
      // something elsewhere (a workflow) cancels it too.
      signal: context.cancellationSignal,
      // The run page links to the started workflow while the attempt still waits on it.
      reportStarted: async (ref) => {
        try {
          await runs.recordStartedWorkflow(run.id, n, ref);
        } catch (err) {
          context.log.warn('could not record the started workflow yet', { error: (err as Error).message });
        }
      },
    });
    if (lease) {
      await giveLeaseBack(context, lease, result);
    }
    metrics?.attempts.inc({ outcome: result.outcome });

    const finishedAt = clock();
    // In `fast` mode the attempt's row is written now, once its request has left: by the close
    // itself when the attempt ends the run (one statement), before the deferral otherwise.
    const attempt = {
      n,
      startedAt: firedAt,
      finish: {
        finishedAt,
        durationMs: Math.round(result.durationMs),
        outcome: result.outcome,
        statusCode: result.statusCode,
        error: result.error,
        requestSummary: result.requestSummary,
        responseBody: result.outcome !== 'success' || config.runs.store_success_bodies ? result.body : null,
        startedWorkflow: result.startedWorkflow ?? null,
      },
    };
    const decision = decideOutcome({
      n,
      outcome: result.outcome,
      error: result.error,
      retryAfterMs: result.retryAfterMs,
      cancelled: cancelAsked(context),
      retry: job.retry,
      random,
    });
    if (context.cancellationSignal.aborted && !cancelAsked(context)) {
      // Nobody asked: the run stays open for Temporal's next try, as after a crash mid-request.
      context.log.warn('attempt interrupted; the run stays open', { outcome: result.outcome });
      throw ApplicationFailure.retryable(
        `attempt interrupted: ${result.error ?? result.outcome}`,
        'AttemptInterrupted',
      );
    }
    if (decision.kind === 'cancel') {
      await record(context, n, () =>
        lifecycle.closeRun({ runId: run.id, status: 'cancelled', finishedAt, error: decision.error, attempt }),
      );
      context.log.info('attempt cancelled; run cancelled', { outcome: result.outcome });
      return { status: 'cancelled' };
    }
    // What the Temporal Web UI shows as this attempt's result or failure (method and host only).
    const said = attemptOutcome(
      { maxAttempts: job.retry.max_attempts, target: sinkTarget(job.sinkKind, job.sinkConfig) },
      n + 1,
      result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? result.outcome),
    );
    // The outcome, never the request or the response (they may carry secrets).
    const outcome = {
      outcome: result.outcome,
      status_code: result.statusCode,
      duration_ms: attempt.finish.durationMs,
      ...(result.error ? { error: result.error } : {}),
    };
    if (decision.kind === 'close') {
      const { status, error } = decision;
      await record(context, n, () => lifecycle.closeRun({ runId: run.id, status, finishedAt, error, attempt }));
      if (status === 'succeeded') {
        context.log.info('attempt succeeded; run succeeded', { ...outcome, status });
      } else {
        context.log.warn('attempt failed; run failed', { ...outcome, status });
      }
      // The run workflow ends Failed with these (Temporal's status is the run's status).
      return status === 'failed' ? { status, outcome: said, attempts: n + 1, error } : { status, outcome: said };
    }
    const { delayMs } = decision;
    if (!safeMode) {
      await record(context, n, () => runs.startAttempt(run, n, firedAt, result.requestSummary));
    }
    await record(context, n, () =>
      runs.deferAfterAttempt(run.id, attempt, new Date(finishedAt.getTime() + delayMs), result.error),
    );
    context.log.warn('attempt failed; retrying', { ...outcome, retry_in_ms: Math.round(delayMs) });
    throw ApplicationFailure.create({
      message: said,
      type: 'RetryableDelivery',
      nextRetryDelay: Math.max(1, delayMs),
      // The run workflow counts the attempts left from it if Temporal's budget runs out first.
      details: [{ attempts: n + 1 } satisfies RetryableDeliveryDetails],
    });
  }
}
