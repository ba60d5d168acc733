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
import { newId, occurrenceRunId } from '@svc/common/ids';
import type { JobActivities, OccurrencePlan, ScheduleActivities, WorkspaceGate } from './activity-types';
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
  type JobSnapshot,
  type JobWorkflowDescription,
  type JobWorkflowInput,
  type JobWorkflowMemo,
  type ParkedJob,
  type Spread,
  type TrackedRun,
} from './definitions';
import { legacyJobWorkflow } from './legacy/job.workflow.v1';
import { collapsedCount, decideOccurrences, plannedAt } from './occurrence-rules';
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

/**
 * One per job (workflow id = job id). Owns timing and the occurrence rules: computes the next
 * occurrence from its snapshot of the job, sleeps on a timer until `prepareAheadMs` before it
 * (the attempt waits out the rest, so the request leaves on time), decides each due occurrence
 * (misfire, suspension, quota, overlap) and records and starts its run in one local activity.
 * Snapshots arrive by signal (PATCH, pause, resume, enable, auto-disable); deletion ends it.
 * Runs are not child workflows: the job workflow is not woken when they start or end, except
 * for overlap policies that need it, where the run signals `runFinished`.
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<void> {
  if (input.parked) {
    return parkedJob(input, input.parked);
  }
  if (!patched(JOB_PATH_PATCH)) {
    return legacyJobWorkflow(input, (carried) => continueAsNew<typeof jobWorkflow>(carried));
  }
  // Once per execution: a run begun before issue 25 keeps its fixed lead until it continues-as-new.
  const prepared = patched(PREPARED_BURSTS_PATCH);
  // Once per execution too: an `allow` job's plan opens its runs (one local activity per wake).
  const planOpensRuns = prepared && patched(PLAN_OPENS_RUNS_PATCH);
  const historyLimit = prepared ? SHORT_HISTORY_LIMIT : HISTORY_LIMIT;
  let snapshot = input.snapshot;
  /** The lead of the occurrence the workflow sleeps for, from the plan that found it (prepared). */
  let plannedLead: number | null = prepared ? (input.leadMs ?? null) : null;
  let registered: string | null = prepared ? (input.registered ?? null) : null;
  let after = input.after ?? nowIso();
  let inFlight: TrackedRun[] = input.inFlight ?? [];
  let queued: TrackedRun | null = input.queued ?? null;
  let pending: JobSnapshot | null = input.pending ?? null;
  /** Set by a new version of a job with a start window: occurrences it carried over fire from here. */
  let carriedAt: string | undefined;
  let deleted = false;
  /** The timer the loop sleeps on between plans, while it sleeps (`sleepUntilChanged`). */
  let sleeping: { scope: CancellationScope; woken: boolean } | null = null;

  // Buffered signals run inside `setHandler`, before the loop: nothing sleeps yet, so none wakes.
  setHandler(jobChangedSignal, (next) => {
    if (next.revision > (pending ?? snapshot).revision) {
      pending = next;
    }
    wakeIfChanged();
  });
  setHandler(jobDeletedSignal, () => {
    deleted = true;
    wakeIfChanged();
  });
  setHandler(runFinishedSignal, (runId) => {
    inFlight = inFlight.filter((run) => run.runId !== runId);
    wakeIfChanged();
  });
  // For the `describe` query and the UI's current details: state only, no commands (replay-safe).
  let next: string | null = null;
  let waitingFor = 'its first plan';
  const describe = (): JobWorkflowDescription => ({
    jobId: snapshot.jobId,
    revision: snapshot.revision,
    version: snapshot.version,
    state: snapshot.state,
    overlapPolicy: snapshot.overlapPolicy ?? 'allow',
    display: snapshot.display ?? null,
    nextOccurrences: next === null ? [] : [next],
    doneUntil: after,
    inFlight,
    queued,
    pendingRevision: pending?.revision ?? null,
    waitingFor,
  });
  setHandler(describeJobQuery, describe);
  const waitFor = (what: string, nextOccurrence: string | null = null) => {
    waitingFor = what;
    next = nextOccurrence;
    setCurrentDetails(describeJobState(describe()));
  };
  const releasable = () => queued !== null && inFlight.length === 0;
  const changed = () => deleted || pending !== null || releasable();
  function wakeIfChanged(): void {
    if (sleeping !== null && !sleeping.woken && changed()) {
      sleeping.woken = true;
      sleeping.scope.cancel();
    }
  }
  /**
   * Sleeps `ms`, or until a signal makes `changed()` true. The same commands as
   * `condition(changed, ms)` (a timer, cancelled when a signal comes first, in the same order on
   * replay), with about half its promises: the SDK captures a stack trace for each promise made in
   * workflow code, and this wait is part of every wake of every job (docs/benchmarks.md →
   * "Promises per wake").
   */
  async function sleepUntilChanged(ms: number): Promise<void> {
    const wait = { scope: new CancellationScope(), woken: false };
    sleeping = wait;
    try {
      await wait.scope.run(() => {
        const timer = sleep(ms);
        // Already changed: started and cancelled at once, as `condition` does.
        wakeIfChanged();
        return timer;
      });
    } catch (err) {
      if (!wait.woken || !isCancellation(err)) {
        throw err;
      }
    } finally {
      sleeping = null;
    }
  }

  if (snapshot.overlapPolicy === undefined) {
    // Carried over from an execution of the older code: its snapshot predates the overlap field.
    const current = await jobs.loadJobSnapshot({ jobId: snapshot.jobId });
    if (current === null) {
      return;
    }
    snapshot = current;
  }
  upsertMemo({ revision: snapshot.revision } satisfies JobWorkflowMemo);

  while (!deleted) {
    if (pending !== null) {
      const previous: JobSnapshot = snapshot;
      snapshot = pending;
      pending = null;
      upsertMemo({ revision: snapshot.revision } satisfies JobWorkflowMemo);
      // A new version drops queued occurrences and recomputes from now (spec: PATCH); occurrences
      // while paused or disabled never exist (decisions.md → misfire_policy).
      if (snapshot.version !== previous.version || (snapshot.state === 'active' && previous.state !== 'active')) {
        const done = after;
        after = nowIso();
        if (snapshot.version !== previous.version && previous.state === 'active' && previous.startOffsetMs) {
          // Spread windows: an occurrence whose nominal time passed but whose planned time had not
          // (under the old offset) was not fired yet; it stays, planned from now at the earliest.
          // One fired already is at or before `done` (and its run id, named after it, dedupes).
          after = laterIso(done, nowIso(-previous.startOffsetMs));
          carriedAt = nowIso();
        }
      }
      if (snapshot.version !== previous.version && queued !== null) {
        // A queued occurrence of the old version is dropped, not delivered with the new config.
        const dropped = queued;
        queued = null;
        await jobs.cancelRuns({ runIds: [dropped.runId] });
      }
      continue;
    }
    if (releasable() && queued !== null) {
      const run = queued;
      queued = null;
      inFlight = [run];
      // A trace of its own, like an occurrence that starts at once (no commands: replay-safe).
      const current = snapshot;
      await inNewTrace('job.release_queued', { 'svc.job.id': current.jobId, 'svc.run.id': run.runId }, () =>
        jobs.startQueuedRun({ ...jobRef(current), run, releasedAt: nowIso() }),
      );
      continue;
    }
    if (snapshot.state !== 'active') {
      waitFor(`the job to become active again (it is ${snapshot.state})`);
      await condition(changed);
      continue;
    }
    // Occurrences within the lead count as due now: their runs are opened ahead and the attempt
    // releases the request at the scheduled instant.
    // Prepared bursts: the lead comes from the plan that found the occurrence (longer when many
    // jobs share its instant, spread so the server's work is done before it: architecture.md).
    const lead = plannedLead ?? snapshot.prepareAheadMs ?? 0;
    const plannedAfter = after;
    // An `allow` job's runs depend on nothing the workflow tracks (unless capped, issue 46): the
    // plan decides and opens them.
    const opens = planOpensRuns && !tracksRuns(snapshot);
    const planning = snapshot;
    const spread = spreadOf(planning, carriedAt);
    // Its own trace unless it is known to find nothing due (a plan after a signal, before the wake).
    const firing = opens && (next === null || Date.parse(plannedAt(next, spread)) <= Date.now() + lead);
    const plan = await inTraceOfOccurrence(firing, planning.jobId, () =>
      planOccurrences({
        schedule: planning.schedule,
        after,
        now: nowIso(lead),
        // Lateness is measured from the real now, with the worker's threshold (the attempt's too).
        leadMs: lead,
        maxCatchUp: MAX_CATCH_UP,
        ...(prepared
          ? {
              prepare: {
                jobId: planning.jobId,
                registered,
                overlapPolicy: planning.overlapPolicy ?? 'allow',
                timeoutMs: planning.display?.timeoutMs ?? null,
              },
              gate: { workspaceId: planning.workspaceId, month: nowIso().slice(0, 7) },
            }
          : {}),
        ...(opens ? { open: { ...jobRef(planning), misfirePolicy: planning.misfirePolicy } } : {}),
        ...(spread ? { spread } : {}),
      }),
    );
    if (prepared && plan.next !== null) {
      // The burst estimate counts the job at its planned instant (the plan's `leadOf`).
      registered = plannedAt(plan.next, spread);
      plannedLead = plan.leadMs ?? null;
    }
    const nextLead = plannedLead ?? snapshot.prepareAheadMs ?? 0;
    if (plan.error) {
      waitFor(`a change to a schedule that no longer compiles (${plan.error})`);
      await condition(changed);
      continue;
    }
    if (plan.missed.length > 0 || plan.onTime.length > 0) {
      if (!plan.opened) {
        // Each firing is its own trace (tracing on): occurrence → run workflow → attempt → request.
        const current = snapshot;
        await inNewTrace(
          'job.occurrence',
          { 'svc.job.id': current.jobId, 'svc.occurrences.due': plan.missed.length + plan.onTime.length },
          () =>
            fire(
              current,
              { missed: plan.missed, onTime: plan.onTime },
              plan.missedTotal,
              plannedAfter,
              plan.gate,
              spread,
            ),
        );
      }
      if (plan.next === null && !plan.ended) {
        // The scan stopped at its budget inside a long backlog: plan the rest now.
        after = plan.scannedUntil;
        continue;
      }
    }
    // The plan already holds the next occurrence after the ones just fired: sleep until it
    // without asking again (one local activity per occurrence saved).
    after = plan.scannedUntil;
    if (plan.next === null) {
      if (plan.ended) {
        await jobs.markJobCompleted({ jobId: snapshot.jobId, revision: snapshot.revision });
        waitFor('nothing: the schedule has no further occurrence (job completed)');
        await condition(changed);
      }
      continue;
    }
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > historyLimit) {
      const carried = pending ?? snapshot;
      await makeContinueAsNewFunc<typeof jobWorkflow>({ memo: revisionMemo(carried) })({
        snapshot: carried,
        after,
        inFlight,
        queued,
        ...(prepared ? { leadMs: plannedLead ?? undefined, registered } : {}),
      });
    }
    // Idle jobs park (issue 25): a long sleep is spent out of the worker's cache, on the parked
    // task queue, and the job comes back UNPARK_MARGIN_MS before it wakes. Only with nothing to
    // track: a parked run does nothing but wait.
    // Spread windows (issue 46): the job wakes for the planned time of its next occurrence.
    const wakeAt = Date.parse(plannedAt(plan.next, spread)) - nextLead;
    if (
      plan.park &&
      wakeAt - Date.now() > plan.park.afterMs &&
      inFlight.length === 0 &&
      queued === null &&
      !changed() &&
      patched(PARKED_JOBS_PATCH)
    ) {
      await makeContinueAsNewFunc<typeof jobWorkflow>({ taskQueue: plan.park.taskQueue, memo: revisionMemo(snapshot) })(
        {
          snapshot,
          after,
          inFlight,
          queued,
          leadMs: plannedLead ?? undefined,
          registered,
          parked: {
            until: new Date(wakeAt - UNPARK_MARGIN_MS).toISOString(),
            next: plan.next,
            returnTo: workflowInfo().taskQueue,
          },
        },
      );
    }
    const burst = prepared && plan.burst !== undefined ? `, ${plan.burst} job(s) due at that instant` : '';
    const offset = spread ? `, planned ${spread.offsetMs} ms after it` : '';
    waitFor(`the timer of the occurrence ${plan.next}${offset} (it wakes ${nextLead} ms before${burst})`, plan.next);
    await sleepUntilChanged(Math.max(1, wakeAt - Date.now()));
  }
  // Deleted: the API cancels the runs in flight; a queued occurrence has no workflow to cancel.
  if (queued !== null) {
    await jobs.cancelRuns({ runIds: [queued.runId] });
  }

  /** Applies the occurrence rules to the due occurrences and opens their runs. */
  async function fire(
    current: JobSnapshot,
    due: { missed: string[]; onTime: string[] },
    missedTotal: number,
    plannedAfter: string,
    /** Read by the plan (prepared bursts); older plans leave it to its own local activity. */
    plannedGate: WorkspaceGate | undefined,
    spread: Spread | undefined,
  ): Promise<void> {
    const overlapPolicy = current.overlapPolicy ?? 'allow';
    const gate =
      plannedGate ?? (await jobs.readWorkspaceGate({ workspaceId: current.workspaceId, month: nowIso().slice(0, 7) }));
    const outcome = decideOccurrences({
      due,
      misfirePolicy: current.misfirePolicy,
      overlapPolicy,
      gate,
      state: { inFlight, queued },
      newRunId: runIdFactory(current.jobId),
      maxConcurrentRuns: current.maxConcurrentRuns ?? null,
    });
    inFlight = outcome.state.inFlight;
    queued = outcome.state.queued;
    const collapsed = collapsedCount(missedTotal, due.missed.length, current.misfirePolicy);
    const opened = await jobs.openRuns({
      ...jobRef(current),
      decisions: outcome.decisions,
      notifyJob: tracksRuns(current),
      collapsed,
      ...(spread ? { spread } : {}),
      // fire_all records the missed occurrences beyond the catch-up limit as skipped misfires.
      ...(collapsed > 0 && current.misfirePolicy === 'fire_all'
        ? { collapsedRange: { schedule: current.schedule, after: plannedAfter, before: due.missed[0] } }
        : {}),
    });
    // An occurrence already recorded under another id (by older code) keeps that run: track it.
    const renamed = opened?.renamed ?? {};
    const rename = (run: TrackedRun): TrackedRun => ({ ...run, runId: renamed[run.runId] ?? run.runId });
    inFlight = inFlight.map(rename);
    queued = queued && rename(queued);
    if (outcome.cancel.length > 0) {
      await jobs.cancelRuns({ runIds: outcome.cancel });
    }
  }
}

/**
 * A parked run (issue 25): on the parked task queue, whose worker keeps no workflow in memory, it
 * waits for its time to go back or for a signal, then continues-as-new onto the task queue it came
 * from, carrying its state and any snapshot signalled meanwhile (applied there as usual). A delete
 * just ends it: a job parks only with no run to track or cancel. No activity runs here.
 */
async function parkedJob(input: JobWorkflowInput, parked: ParkedJob): Promise<void> {
  const { snapshot } = input;
  let pending: JobSnapshot | null = input.pending ?? null;
  let deleted = false;
  let inFlight: TrackedRun[] = input.inFlight ?? [];
  setHandler(jobChangedSignal, (next) => {
    if (next.revision > (pending ?? snapshot).revision) {
      pending = next;
    }
  });
  setHandler(jobDeletedSignal, () => {
    deleted = true;
  });
  setHandler(runFinishedSignal, (runId) => {
    inFlight = inFlight.filter((run) => run.runId !== runId);
  });
  const describe = (): JobWorkflowDescription => ({
    jobId: snapshot.jobId,
    revision: snapshot.revision,
    version: snapshot.version,
    state: snapshot.state,
    overlapPolicy: snapshot.overlapPolicy ?? 'allow',
    display: snapshot.display ?? null,
    nextOccurrences: [parked.next],
    doneUntil: input.after ?? parked.until,
    inFlight,
    queued: input.queued ?? null,
    pendingRevision: pending?.revision ?? null,
    waitingFor:
      `the timer of the occurrence ${parked.next}, parked until ${parked.until} ` +
      `on task queue ${workflowInfo().taskQueue} (out of the worker's memory)`,
  });
  setHandler(describeJobQuery, describe);
  upsertMemo({ revision: snapshot.revision } satisfies JobWorkflowMemo);
  setCurrentDetails(describeJobState(describe()));
  await condition(() => deleted || pending !== null, Math.max(1, Date.parse(parked.until) - Date.now()));
  if (deleted) {
    return;
  }
  const { parked: _left, ...state } = input;
  await makeContinueAsNewFunc<typeof jobWorkflow>({ taskQueue: parked.returnTo, memo: revisionMemo(snapshot) })({
    ...state,
    inFlight,
    pending,
  });
}

/**
 * A plan that opens runs is the firing of its occurrences: when `firing` it is their own trace, as
 * `fire` is (tracing on), with the count it found due. No commands: replay-safe.
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
 * The memo a continued run starts with: the revision it carries, which the reconciler reads from
 * visibility. Without it the new run has no memo until its first task upserts one (a parked run's
 * first task can be a second away), and a reconciler pass in between would take the job for
 * drifted and signal it again. Continue-as-new is matched on replay by its command type only.
 */
function revisionMemo(snapshot: JobSnapshot): Record<string, unknown> {
  return { revision: snapshot.revision } satisfies JobWorkflowMemo;
}

/** The job workflow's state in words, for the Temporal Web UI's current details. */
function describeJobState(d: JobWorkflowDescription): string {
  const runs = `${d.inFlight.length} run(s) tracked in flight${d.queued ? `, 1 queued (${d.queued.scheduledAt})` : ''}`;
  return [
    `Revision ${d.revision} (version ${d.version}), ${d.state}${d.display ? ` · ${d.display.name} · ${d.display.schedule} (${d.display.timezone})` : ''}.`,
    `Waiting for ${d.waitingFor}.`,
    d.overlapPolicy === 'allow' && d.inFlight.length === 0 ? 'Overlap policy allow: runs are not tracked.' : `${runs}.`,
  ].join('\n');
}

/** Whether the workflow tracks the job's runs in flight: every policy but `allow`, and a capped `allow`. */
function tracksRuns(snapshot: JobSnapshot): boolean {
  return (snapshot.overlapPolicy ?? 'allow') !== 'allow' || snapshot.maxConcurrentRuns !== undefined;
}

/** The job's start window as its plans and runs apply it (issue 46); none without an offset. */
function spreadOf(snapshot: JobSnapshot, carriedAt: string | undefined): Spread | undefined {
  if (!snapshot.startOffsetMs) {
    return carriedAt === undefined ? undefined : { offsetMs: 0, notBefore: carriedAt };
  }
  return { offsetMs: snapshot.startOffsetMs, ...(carriedAt === undefined ? {} : { notBefore: carriedAt }) };
}

function laterIso(a: string, b: string): string {
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

function jobRef(snapshot: JobSnapshot) {
  return {
    jobId: snapshot.jobId,
    workspaceId: snapshot.workspaceId,
    jobVersion: snapshot.version,
    ...(snapshot.display ? { display: snapshot.display } : {}),
  };
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

function nowIso(aheadMs = 0): string {
  return new Date(Date.now() + aheadMs).toISOString();
}
