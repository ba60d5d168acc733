import type { JobSnapshot, JobWorkflowDescription, JobWorkflowMemo, Spread } from './definitions';

/**
 * Pure rules over the job workflow's snapshot of its job: what it tracks, its start window, the
 * memo and the words it shows. No workflow API here, so they are safe anywhere and replay-neutral.
 */

/**
 * The memo a continued run starts with: the revision it carries, which the reconciler reads from
 * visibility. Without it the new run has no memo until its first task upserts one (a parked run's
 * first task can be a second away), and a reconciler pass in between would take the job for
 * drifted and signal it again. Continue-as-new is matched on replay by its command type only.
 */
export function revisionMemo(snapshot: JobSnapshot): Record<string, unknown> {
  return { revision: snapshot.revision } satisfies JobWorkflowMemo;
}

/** The job workflow's state in words, for the Temporal Web UI's current details. */
export function describeJobState(d: JobWorkflowDescription): string {
  const runs = `${d.inFlight.length} run(s) tracked in flight${d.queued ? `, 1 queued (${d.queued.scheduledAt})` : ''}`;
  return [
    `Revision ${d.revision} (version ${d.version}), ${d.state}${d.display ? ` · ${d.display.name} · ${d.display.schedule} (${d.display.timezone})` : ''}.`,
    `Waiting for ${d.waitingFor}.`,
    d.overlapPolicy === 'allow' && d.inFlight.length === 0 ? 'Overlap policy allow: runs are not tracked.' : `${runs}.`,
  ].join('\n');
}

/** Whether the workflow tracks the job's runs in flight: every policy but `allow`, and a capped `allow`. */
export function tracksRuns(snapshot: JobSnapshot): boolean {
  return (snapshot.overlapPolicy ?? 'allow') !== 'allow' || snapshot.maxConcurrentRuns !== undefined;
}

/** The job's start window as its plans and runs apply it; none without an offset. */
export function spreadOf(snapshot: JobSnapshot, carriedAt: string | undefined): Spread | undefined {
  if (!snapshot.startOffsetMs) {
    return carriedAt === undefined ? undefined : { offsetMs: 0, notBefore: carriedAt };
  }
  return { offsetMs: snapshot.startOffsetMs, ...(carriedAt === undefined ? {} : { notBefore: carriedAt }) };
}

/**
 * Where a change's schedule starts: its commit (`JobSnapshot.committedAt`), never later
 * than `now`, the workflow's clock when it hears of it; `now` for snapshots without it. The
 * occurrences between are the change's own, due late: the misfire policy decides them.
 */
export function scheduleStartOf(committedAt: string | undefined, now: string): string {
  return committedAt === undefined || Date.parse(committedAt) >= Date.parse(now) ? now : committedAt;
}

export function laterIso(a: string, b: string): string {
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

export function jobRef(snapshot: JobSnapshot) {
  return {
    jobId: snapshot.jobId,
    workspaceId: snapshot.workspaceId,
    jobVersion: snapshot.version,
    ...(snapshot.display ? { display: snapshot.display } : {}),
  };
}

/** The job's occurrence rules as `decideOpening` takes them. */
export function rulesOf(snapshot: JobSnapshot) {
  return {
    misfirePolicy: snapshot.misfirePolicy,
    overlapPolicy: snapshot.overlapPolicy ?? 'allow',
    maxConcurrentRuns: snapshot.maxConcurrentRuns ?? null,
  };
}
