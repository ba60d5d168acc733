import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { newId, occurrenceRunId } from '@svc/workflow-contract/ids';
import type { JobActivities, OccurrencePlan, ScheduleActivities } from '@svc/workflow-contract/activity-types';
import {
  describeJobQuery,
  jobChangedSignal,
  jobDeletedSignal,
  runFinishedSignal,
  JOB_PATH_PATCH,
  OCCURRENCE_RUN_ID_PATCH,
  PARKED_JOBS_PATCH,
  PLAN_OPENS_RUNS_PATCH,
  PREPARED_BURSTS_PATCH,
  SCHEDULE_FROM_COMMIT_PATCH,
  type JobSnapshot,
  type JobWorkflowDescription,
  type JobWorkflowInput,
  type ParkedJob,
  type Spread,
  type TrackedRun,
} from '@svc/workflow-contract/definitions';
import { legacyJobWorkflow } from './legacy/job.workflow.v1';
import { decideOpening, dropUntracked, renameTracked } from '@svc/workflow-contract/occurrence-opening';
import { plannedAt } from '@svc/workflow-contract/occurrence-rules';
import {
  describeJobState,
  jobRef,
  laterIso,
  revisionMemo,
  rulesOf,
  scheduleStartOf,
  spreadOf,
  tracksRuns,
} from '@svc/workflow-contract/job-snapshot-rules';
import { inNewTrace } from './tracing/new-trace';

// Local activities: no task queue round trip, and their results are recorded in history so
// replay never re-reads the database or the host's time-zone data.
const { planOccurrences } = proxyLocalActivities<ScheduleActivities>({
  startToCloseTimeout: '10s',
  retry: { maximumInterval: '30s' },
});
const jobs = proxyLocalActivities<JobActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', maximumInterval: '30s' },
});

/** fire_all delivers at most this many missed occurrences per catch-up (decisions.md). */
const MAX_CATCH_UP = 100;
const HISTORY_LIMIT = 4_000;
/**
 * With prepared bursts: about 60 occurrences a run (8 events each). A sleeping job replays at most
 * this much when it wakes after being evicted from the worker's cache, and holds less while cached.
 */
const SHORT_HISTORY_LIMIT = 500;
/**
 * A parked job goes back to its task queue this long before its wake: the way back (a timer, a
 * replay, continue-as-new, a plan) must be done before the occurrence's preparation begins.
 */
const UNPARK_MARGIN_MS = 30_000;

/** What an execution on the job path decided once, at its start (each patch is asked once). */
interface ExecutionPath {
  /** Prepared bursts: a run begun before keeps its fixed lead until it continues-as-new. */
  prepared: boolean;
  /** An `allow` job's plan opens its runs (one local activity per wake). */
  planOpensRuns: boolean;
  historyLimit: number;
}

/**
 * The job workflow's state, running or parked: what the signal handlers change, what `describe`
 * reports and what continue-as-new carries.
 */
interface JobWorkflowState {
  snapshot: JobSnapshot;
  /** A newer snapshot signalled, applied at the top of the loop. */
  pending: JobSnapshot | null;
  deleted: boolean;
  /** Occurrences at or before this instant are done. */
  after: string;
  inFlight: TrackedRun[];
  queued: TrackedRun | null;
  /** Set by a new version of a job with a start window: occurrences it carried over fire from here. */
  carriedAt?: string;
  /** The lead of the occurrence the workflow sleeps for, from the plan that found it (prepared). */
  plannedLead: number | null;
  /** The instant the job is counted at in the burst estimate (prepared). */
  registered: string | null;
  /** For `describe` and the UI's current details: the occurrence waited for, and what is awaited. */
  next: string | null;
  waitingFor: string;
  /** The timer the loop sleeps on between plans, while it sleeps (`sleepUntilChanged`). */
  sleeping: { scope: CancellationScope; woken: boolean } | null;
}

/**
 * One per job (workflow id = job id). Owns timing and the occurrence rules: computes the next
 * occurrence from its snapshot of the job, sleeps on a timer until `prepareAheadMs` before it
 * (the attempt waits out the rest, so the request leaves on time), decides each due occurrence
 * (misfire, suspension, quota, overlap) and records and starts its run in one local activity.
 * Snapshots arrive by signal (PATCH, pause, resume, enable, auto-disable); deletion ends it.
 * Runs are not child workflows: the job workflow is not woken when they start or end, except
 * for overlap policies that need it, where the run signals `runFinished`.
 *
 * Named steps (architecture.md → The job workflow's steps): `listen` (signals and `describe`,
 * for running and parked jobs alike), then `runJob`'s loop of `applyPending`, `releaseQueued`,
 * `waitForChange` and `wake` (`planNext`, `openDue`, `waitForNext` with `continueAsNewIfLong`
 * and `parkIfIdle`); a parked job only waits to go back (`parkedJob`).
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<void> {
  if (input.parked) {
    return parkedJob(listen(stateOf(input, null)), input, input.parked);
  }
  if (!patched(JOB_PATH_PATCH)) {
    return legacyJobWorkflow(input, (carried) => continueAsNew<typeof jobWorkflow>(carried));
  }
  // Once per execution: a run begun before bursts were prepared ahead keeps its fixed lead until it continues-as-new.
  const prepared = patched(PREPARED_BURSTS_PATCH);
  // Once per execution too: an `allow` job's plan opens its runs (one local activity per wake).
  const planOpensRuns = prepared && patched(PLAN_OPENS_RUNS_PATCH);
  const path: ExecutionPath = { prepared, planOpensRuns, historyLimit: prepared ? SHORT_HISTORY_LIMIT : HISTORY_LIMIT };
  return runJob(listen(stateOf(input, path)), path);
}

/** The state an execution starts from (`path` null: parked). */
function stateOf(input: JobWorkflowInput, path: ExecutionPath | null): JobWorkflowState {
  const prepared = path?.prepared ?? false;
  return {
    snapshot: input.snapshot,
    pending: input.pending ?? null,
    deleted: false,
    after: input.after ?? input.parked?.until ?? scheduleStart(input.snapshot),
    inFlight: input.inFlight ?? [],
    queued: input.queued ?? null,
    plannedLead: prepared ? (input.leadMs ?? null) : null,
    registered: prepared ? (input.registered ?? null) : null,
    next: input.parked?.next ?? null,
    waitingFor: input.parked ? parkedWaitingFor(input.parked) : 'its first plan',
    sleeping: null,
  };
}

/**
 * The signal handlers and the `describe` query, set up once for a running and a parked job. They
 * change state only (no commands: replay-safe). Buffered signals run inside `setHandler`, before
 * the loop: nothing sleeps yet, so none wakes.
 */
function listen(job: JobWorkflowState): JobWorkflowState {
  setHandler(jobChangedSignal, (next) => {
    if (next.revision > (job.pending ?? job.snapshot).revision) {
      job.pending = next;
    }
    wakeIfChanged(job);
  });
  setHandler(jobDeletedSignal, () => {
    job.deleted = true;
    wakeIfChanged(job);
  });
  setHandler(runFinishedSignal, (runId) => {
    job.inFlight = job.inFlight.filter((run) => run.runId !== runId);
    wakeIfChanged(job);
  });
  setHandler(describeJobQuery, () => describe(job));
  return job;
}

/** For the `describe` query and the UI's current details: state only, no commands (replay-safe). */
function describe(job: JobWorkflowState): JobWorkflowDescription {
  const { snapshot } = job;
  return {
    jobId: snapshot.jobId,
    revision: snapshot.revision,
    version: snapshot.version,
    state: snapshot.state,
    overlapPolicy: snapshot.overlapPolicy ?? 'allow',
    display: snapshot.display ?? null,
    nextOccurrences: job.next === null ? [] : [job.next],
    doneUntil: job.after,
    inFlight: job.inFlight,
    queued: job.queued,
    pendingRevision: job.pending?.revision ?? null,
    waitingFor: job.waitingFor,
  };
}

/** The loop of a running job: one step at a time until the job is deleted. */
async function runJob(job: JobWorkflowState, path: ExecutionPath): Promise<void> {
  if (job.snapshot.overlapPolicy === undefined) {
    // Carried over from an execution of the older code: its snapshot predates the overlap field.
    const current = await jobs.loadJobSnapshot({ jobId: job.snapshot.jobId });
    if (current === null) {
      return;
    }
    job.snapshot = current;
  }
  upsertMemo(revisionMemo(job.snapshot));
  while (!job.deleted) {
    await step(job, path);
  }
  // Deleted: the API cancels the runs in flight; a queued occurrence has no workflow to cancel.
  if (job.queued !== null) {
    await jobs.cancelRuns({ runIds: [job.queued.runId] });
  }
}

/** One turn of the loop: a new snapshot first, then a queued run to release, then the schedule. */
function step(job: JobWorkflowState, path: ExecutionPath): Promise<void> {
  if (job.pending !== null) {
    return applyPending(job, job.pending);
  }
  if (releasable(job) && job.queued !== null) {
    return releaseQueued(job, job.queued);
  }
  if (job.snapshot.state !== 'active') {
    return waitForChange(job, `the job to become active again (it is ${job.snapshot.state})`);
  }
  return wake(job, path);
}

/**
 * Applies a signalled snapshot. A new version drops queued occurrences and recomputes from now
 * (spec: PATCH); occurrences while paused or disabled never exist (decisions.md → misfire_policy).
 */
async function applyPending(job: JobWorkflowState, snapshot: JobSnapshot): Promise<void> {
  const previous = job.snapshot;
  job.snapshot = snapshot;
  job.pending = null;
  upsertMemo(revisionMemo(snapshot));
  const newVersion = snapshot.version !== previous.version;
  if (newVersion || (snapshot.state === 'active' && previous.state !== 'active')) {
    const done = job.after;
    // From the change's commit, however late it is heard of; a resume never goes back
    // over what this version already planned.
    job.after = newVersion ? scheduleStart(snapshot) : laterIso(done, scheduleStart(snapshot));
    if (newVersion && previous.state === 'active' && previous.startOffsetMs) {
      // Spread windows: an occurrence whose nominal time passed but whose planned time had not
      // (under the old offset) was not fired yet; it stays, planned from now at the earliest.
      // One fired already is at or before `done` (and its run id, named after it, dedupes).
      job.after = laterIso(done, nowIso(-previous.startOffsetMs));
      job.carriedAt = nowIso();
    }
  }
  if (newVersion && job.queued !== null) {
    // A queued occurrence of the old version is dropped, not delivered with the new config.
    const dropped = job.queued;
    job.queued = null;
    await jobs.cancelRuns({ runIds: [dropped.runId] });
  }
}

/** Starts the queued occurrence once the run it waited for has ended. */
async function releaseQueued(job: JobWorkflowState, run: TrackedRun): Promise<void> {
  job.queued = null;
  job.inFlight = [run];
  // A trace of its own, like an occurrence that starts at once (no commands: replay-safe).
  const current = job.snapshot;
  await inNewTrace('job.release_queued', { 'svc.job.id': current.jobId, 'svc.run.id': run.runId }, () =>
    jobs.startQueuedRun({ ...jobRef(current), run, releasedAt: nowIso() }),
  );
}

/** Waits, without a timer, for a signal that changes something (`changed`). */
async function waitForChange(job: JobWorkflowState, what: string): Promise<void> {
  waitFor(job, what);
  await condition(() => changed(job));
}

/** A wake of an active job: plan, open what is due, then wait for the next occurrence. */
async function wake(job: JobWorkflowState, path: ExecutionPath): Promise<void> {
  const plannedAfter = job.after;
  const spread = spreadOf(job.snapshot, job.carriedAt);
  const plan = await planNext(job, path, spread);
  if (plan.error) {
    return waitForChange(job, `a change to a schedule that no longer compiles (${plan.error})`);
  }
  if ((plan.missed.length > 0 || plan.onTime.length > 0) && !plan.opened) {
    await openDue(job, plan, plannedAfter, spread);
  }
  // With no `next` and not ended, the scan stopped at its budget inside a long backlog: the next
  // turn plans the rest. Otherwise the plan already holds the next occurrence after the ones just
  // fired: sleep until it without asking again (one local activity per occurrence saved).
  job.after = plan.scannedUntil;
  if (plan.next === null) {
    if (plan.ended) {
      await jobs.markJobCompleted({ jobId: job.snapshot.jobId, revision: job.snapshot.revision });
      await waitForChange(job, 'nothing: the schedule has no further occurrence (job completed)');
    }
    return;
  }
  await waitForNext(job, path, plan, plan.next, spread);
}

/**
 * Asks the plan activity for the occurrences due (within the lead) and the next one. Occurrences
 * within the lead count as due now: their runs are opened ahead and the attempt releases the
 * request at the scheduled instant. Prepared bursts: the lead comes from the plan that found the
 * occurrence (longer when many jobs share its instant: architecture.md).
 */
async function planNext(
  job: JobWorkflowState,
  path: ExecutionPath,
  spread: Spread | undefined,
): Promise<OccurrencePlan> {
  const planning = job.snapshot;
  const lead = job.plannedLead ?? planning.prepareAheadMs ?? 0;
  // An `allow` job's runs depend on nothing the workflow tracks (unless capped): the
  // plan decides and opens them.
  const opens = path.planOpensRuns && !tracksRuns(planning);
  // Its own trace unless it is known to find nothing due (a plan after a signal, before the wake).
  const firing = opens && (job.next === null || Date.parse(plannedAt(job.next, spread)) <= Date.now() + lead);
  const plan = await inTraceOfOccurrence(firing, planning.jobId, () =>
    planOccurrences({
      schedule: planning.schedule,
      after: job.after,
      now: nowIso(lead),
      // Lateness is measured from the real now, with the worker's threshold (the attempt's too).
      leadMs: lead,
      maxCatchUp: MAX_CATCH_UP,
      ...(path.prepared ? preparedPlan(planning, job.registered) : {}),
      ...(opens ? { open: { ...jobRef(planning), misfirePolicy: planning.misfirePolicy } } : {}),
      ...(spread ? { spread } : {}),
    }),
  );
  if (path.prepared && plan.next !== null) {
    // The burst estimate counts the job at its planned instant (the plan's `leadOf`).
    job.registered = plannedAt(plan.next, spread);
    job.plannedLead = plan.leadMs ?? null;
  }
  return plan;
}

/** What a prepared plan is asked besides the occurrences: the burst lead and the workspace gate. */
function preparedPlan(planning: JobSnapshot, registered: string | null) {
  return {
    prepare: {
      jobId: planning.jobId,
      registered,
      overlapPolicy: planning.overlapPolicy ?? 'allow',
    },
    gate: { workspaceId: planning.workspaceId, month: nowIso().slice(0, 7) },
  };
}

/**
 * Opens the due occurrences the plan did not open itself: the occurrence rules
 * (`decideOpening`, the same path the plan activity takes for an `allow` job) against the runs
 * tracked, then `openRuns`, then `cancel_previous`'s cancellations. Each firing is its own trace
 * (tracing on): occurrence → run workflow → attempt → request.
 */
async function openDue(
  job: JobWorkflowState,
  plan: OccurrencePlan,
  plannedAfter: string,
  spread: Spread | undefined,
): Promise<void> {
  const current = job.snapshot;
  const attributes = { 'svc.job.id': current.jobId, 'svc.occurrences.due': plan.missed.length + plan.onTime.length };
  await inNewTrace('job.occurrence', attributes, async () => {
    // Read by the plan (prepared bursts); older plans leave it to its own local activity.
    const gate =
      plan.gate ?? (await jobs.readWorkspaceGate({ workspaceId: current.workspaceId, month: nowIso().slice(0, 7) }));
    const opening = decideOpening({
      job: { ...jobRef(current), ...rulesOf(current), schedule: current.schedule },
      due: { missed: plan.missed, onTime: plan.onTime },
      missedTotal: plan.missedTotal,
      after: plannedAfter,
      gate,
      state: { inFlight: job.inFlight, queued: job.queued },
      newRunId: runIdFactory(current.jobId),
      notifyJob: tracksRuns(current),
      spread,
    });
    job.inFlight = opening.state.inFlight;
    job.queued = opening.state.queued;
    const opened = await jobs.openRuns(opening.openRuns);
    // An occurrence already recorded under another id (by older code) keeps that run: track it.
    ({ inFlight: job.inFlight, queued: job.queued } = dropUntracked(
      renameTracked(job, opened?.renamed),
      opened?.untracked,
    ));
    if (opening.cancel.length > 0) {
      await jobs.cancelRuns({ runIds: opening.cancel });
    }
  });
}

/** Before the timer: continue-as-new when the history is long, park when idle; then sleep. */
async function waitForNext(
  job: JobWorkflowState,
  path: ExecutionPath,
  plan: OccurrencePlan,
  next: string,
  spread: Spread | undefined,
): Promise<void> {
  const nextLead = job.plannedLead ?? job.snapshot.prepareAheadMs ?? 0;
  await continueAsNewIfLong(job, path);
  // Spread windows: the job wakes for the planned time of its next occurrence.
  const wakeAt = Date.parse(plannedAt(next, spread)) - nextLead;
  await parkIfIdle(job, plan, next, wakeAt);
  const burst = path.prepared && plan.burst !== undefined ? `, ${plan.burst} job(s) due at that instant` : '';
  const offset = spread ? `, planned ${spread.offsetMs} ms after it` : '';
  waitFor(job, `the timer of the occurrence ${next}${offset} (it wakes ${nextLead} ms before${burst})`, next);
  await sleepUntilChanged(job, Math.max(1, wakeAt - Date.now()));
}

/** Continues-as-new before the history grows large, carrying the state (and a pending snapshot). */
async function continueAsNewIfLong(job: JobWorkflowState, path: ExecutionPath): Promise<void> {
  if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > path.historyLimit) {
    const carried = job.pending ?? job.snapshot;
    await makeContinueAsNewFunc<typeof jobWorkflow>({ memo: revisionMemo(carried) })({
      snapshot: carried,
      after: job.after,
      inFlight: job.inFlight,
      queued: job.queued,
      ...(path.prepared ? { leadMs: job.plannedLead ?? undefined, registered: job.registered } : {}),
    });
  }
}

/**
 * Idle jobs park: a long sleep is spent out of the worker's cache, on the parked task
 * queue, and the job comes back UNPARK_MARGIN_MS before it wakes. Only with nothing to track: a
 * parked run does nothing but wait.
 */
async function parkIfIdle(job: JobWorkflowState, plan: OccurrencePlan, next: string, wakeAt: number): Promise<void> {
  if (
    plan.park &&
    wakeAt - Date.now() > plan.park.afterMs &&
    job.inFlight.length === 0 &&
    job.queued === null &&
    !changed(job) &&
    patched(PARKED_JOBS_PATCH)
  ) {
    await makeContinueAsNewFunc<typeof jobWorkflow>({
      taskQueue: plan.park.taskQueue,
      memo: revisionMemo(job.snapshot),
    })({
      snapshot: job.snapshot,
      after: job.after,
      inFlight: job.inFlight,
      queued: job.queued,
      leadMs: job.plannedLead ?? undefined,
      registered: job.registered,
      parked: {
        until: new Date(wakeAt - UNPARK_MARGIN_MS).toISOString(),
        next,
        returnTo: workflowInfo().taskQueue,
      },
    });
  }
}

/**
 * A parked run: on the parked task queue, whose worker keeps no workflow in memory, it
 * waits for its time to go back or for a signal, then continues-as-new onto the task queue it came
 * from, carrying its state and any snapshot signalled meanwhile (applied there as usual). A delete
 * just ends it: a job parks only with no run to track or cancel. No activity runs here.
 */
async function parkedJob(job: JobWorkflowState, input: JobWorkflowInput, parked: ParkedJob): Promise<void> {
  upsertMemo(revisionMemo(job.snapshot));
  setCurrentDetails(describeJobState(describe(job)));
  await condition(() => job.deleted || job.pending !== null, Math.max(1, Date.parse(parked.until) - Date.now()));
  if (job.deleted) {
    return;
  }
  const { parked: _left, ...state } = input;
  await makeContinueAsNewFunc<typeof jobWorkflow>({ taskQueue: parked.returnTo, memo: revisionMemo(job.snapshot) })({
    ...state,
    inFlight: job.inFlight,
    pending: job.pending,
  });
}

function parkedWaitingFor(parked: ParkedJob): string {
  return (
    `the timer of the occurrence ${parked.next}, parked until ${parked.until} ` +
    `on task queue ${workflowInfo().taskQueue} (out of the worker's memory)`
  );
}

/** Records what the job waits for, for `describe` and the Temporal Web UI's current details. */
function waitFor(job: JobWorkflowState, what: string, nextOccurrence: string | null = null): void {
  job.waitingFor = what;
  job.next = nextOccurrence;
  setCurrentDetails(describeJobState(describe(job)));
}

function releasable(job: JobWorkflowState): boolean {
  return job.queued !== null && job.inFlight.length === 0;
}

/** Whether a signal gave the loop something to do. */
function changed(job: JobWorkflowState): boolean {
  return job.deleted || job.pending !== null || releasable(job);
}

function wakeIfChanged(job: JobWorkflowState): void {
  const { sleeping } = job;
  if (sleeping !== null && !sleeping.woken && changed(job)) {
    sleeping.woken = true;
    sleeping.scope.cancel();
  }
}

/**
 * Sleeps `ms`, or until a signal makes `changed` true. The same commands as
 * `condition(changed, ms)` (a timer, cancelled when a signal comes first, in the same order on
 * replay), with about half its promises: the SDK captures a stack trace for each promise made in
 * workflow code, and this wait is part of every wake of every job (docs/benchmarks.md →
 * "Promises per wake").
 */
async function sleepUntilChanged(job: JobWorkflowState, ms: number): Promise<void> {
  const wait = { scope: new CancellationScope(), woken: false };
  job.sleeping = wait;
  try {
    await wait.scope.run(() => {
      const timer = sleep(ms);
      // Already changed: started and cancelled at once, as `condition` does.
      wakeIfChanged(job);
      return timer;
    });
  } catch (err) {
    if (!wait.woken || !isCancellation(err)) {
      throw err;
    }
  } finally {
    job.sleeping = null;
  }
}

/**
 * A plan that opens runs is the firing of its occurrences: when `firing` it is their own trace, as
 * `openDue` is (tracing on), with the count it found due. No commands: replay-safe.
 */
function inTraceOfOccurrence(
  firing: boolean,
  jobId: string,
  plan: () => Promise<OccurrencePlan>,
): Promise<OccurrencePlan> {
  return firing
    ? inNewTrace('job.occurrence', { 'svc.job.id': jobId }, plan, (p) => ({
        'svc.occurrences.due': p.missed.length + p.onTime.length,
      }))
    : plan();
}

/**
 * Run ids named after their occurrence; executions that opened runs before that replay with ids
 * from the workflow's clock and random source, as they recorded them.
 */
function runIdFactory(jobId: string): (scheduledAt: string) => string {
  if (patched(OCCURRENCE_RUN_ID_PATCH)) {
    return (scheduledAt) => occurrenceRunId(jobId, Date.parse(scheduledAt));
  }
  return () => newId('run', Date.now());
}

/**
 * Where a job's schedule starts on a fresh execution, a new version or a resume: the commit of the
 * change (`JobSnapshot.committedAt`), not this workflow's clock when it hears of it, which
 * a Temporal outage or a retried first task puts later, silently dropping what was due between.
 */
function scheduleStart(snapshot: JobSnapshot): string {
  const fromCommit = snapshot.committedAt !== undefined && patched(SCHEDULE_FROM_COMMIT_PATCH);
  return fromCommit ? scheduleStartOf(snapshot.committedAt, nowIso()) : nowIso();
}

function nowIso(aheadMs = 0): string {
  return new Date(Date.now() + aheadMs).toISOString();
}
