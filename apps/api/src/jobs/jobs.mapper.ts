import { formatDuration } from '@svc/common';
import { startOffsetMs } from '@svc/orchestration';
import type { JobEntity, LatestRun } from '@svc/persistence';
import { retryResponse } from './job-config';
import type { JobSettings } from './job-patch';
import type { OccurrenceSkipResponse } from './occurrence-skips/occurrence-skips.mapper';

export interface JobStats24h {
  runs: number;
  succeeded: number;
  failed: number;
  sla_breached: number;
  p95_start_lag_ms: number | null;
}

export interface JobResponseExtras {
  nextRunAt: Date | null;
  nextRuns?: Date[];
  /** Only on the single GET, with `nextRuns`. */
  skippedOccurrences?: OccurrenceSkipResponse[];
  stats24h?: JobStats24h;
  /** Only in the create and rotate responses, for webhook jobs. */
  signingSecret?: string;
  /** Only in the list: the run that tells how the job is doing; null when it has none. */
  latestRun?: LatestRun | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The spec's job object; entities never leave the service layer as responses (style.md rule 2). */
export function toJobResponse(job: JobEntity, extras: JobResponseExtras) {
  return {
    id: job.id,
    // `?? null`: rows written before the key columns existed read as undefined in unit fixtures.
    key: job.key ?? null,
    managed_by: job.managedBy ?? null,
    name: job.name,
    description: job.description,
    tags: job.tags,
    schedule: {
      expr: job.scheduleExpr,
      kind: job.scheduleKind,
      canonical: job.scheduleCanonical,
      description: job.scheduleDescription,
      ...scheduleWindow(job),
    },
    ...deliverySettings(job),
    ...spreadResponse(job),
    state: job.state,
    disabled_reason: job.disabledReason,
    // Why a paused job is paused and when its maintenance window resumes it (`?? null`:
    // a job built for insert has neither property).
    paused_note: job.pausedNote ?? null,
    resume_at: iso(job.resumeAt ?? null),
    consecutive_failures: job.consecutiveFailures,
    next_run_at: iso(extras.nextRunAt),
    ...(extras.nextRuns ? { next_runs: extras.nextRuns.map((d) => d.toISOString()) } : {}),
    ...(extras.skippedOccurrences ? { skipped_occurrences: extras.skippedOccurrences } : {}),
    ...(extras.nextRuns ? { next_occurrences: extras.nextRuns.map((d) => occurrenceResponse(job, d)) } : {}),
    ...(extras.stats24h ? { stats_24h: extras.stats24h } : {}),
    last_run_at: iso(job.lastRunAt),
    // `?? null`: a job built for insert (create answers from it) has no last_run_status property.
    last_run_status: job.lastRunStatus ?? null,
    ...(extras.latestRun !== undefined ? { latest_run: latestRunResponse(extras.latestRun, job) } : {}),
    version: job.version,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    ...(extras.signingSecret ? { signing_secret: extras.signingSecret } : {}),
  };
}

export type JobResponse = ReturnType<typeof toJobResponse>;

/** The stored job's settings in the create body's shape: what a PATCH is merged with (job-patch.ts). */
export function toJobSettings(job: JobEntity): JobSettings {
  return {
    name: job.name,
    description: job.description,
    tags: [...job.tags],
    schedule: { expr: job.scheduleExpr, kind: job.scheduleKind, ...scheduleWindow(job) },
    ...deliverySettings(job),
    start_window: startWindow(job),
    max_concurrent_runs: job.maxConcurrentRuns ?? null,
  };
}

/** The schedule's settings after its expression and kind, as both the job object and its settings show them. */
function scheduleWindow(job: JobEntity) {
  return {
    timezone: job.scheduleTimezone,
    starts_at: iso(job.scheduleStartsAt),
    ends_at: iso(job.scheduleEndsAt),
    count: job.scheduleCount,
    // `?? []`: a job built for insert before the column existed (unit fixtures). A copy: the
    // settings are merged with a PATCH, never the entity's own array.
    exclude_calendars: [...(job.excludeCalendars ?? [])],
  };
}

/** The sink and the delivery policies (copies, for the same reason), as the create body names them. */
function deliverySettings(job: JobEntity) {
  return {
    sink: { kind: job.sinkKind, config: { ...job.sinkConfig } },
    retry: retryResponse(job.retry),
    timeout: formatDuration(job.timeoutMs),
    sla_threshold: job.slaThresholdMs === null ? null : formatDuration(job.slaThresholdMs),
    misfire_policy: job.misfirePolicy,
    overlap_policy: job.overlapPolicy,
    auto_disable_threshold: job.autoDisableThreshold,
  };
}

function startWindow(job: JobEntity): string | null {
  return job.startWindowMs ? formatDuration(job.startWindowMs) : null;
}

/**
 * Spread windows and the run cap as the job object shows them: the window, the job's
 * offset inside it, and the cap as stored (null: unbounded under `allow`, 1 under the others).
 */
function spreadResponse(job: JobEntity) {
  return {
    start_window: startWindow(job),
    start_offset_ms: startOffsetMs(job.id, job.startWindowMs),
    max_concurrent_runs: job.maxConcurrentRuns ?? null,
  };
}

/** An upcoming occurrence: its nominal time and when it is planned to fire. */
function occurrenceResponse(job: JobEntity, scheduledAt: Date) {
  return {
    scheduled_at: scheduledAt.toISOString(),
    planned_at: new Date(scheduledAt.getTime() + startOffsetMs(job.id, job.startWindowMs)).toISOString(),
  };
}

/**
 * The list's `latest_run`: an open run counts (`last_run_*` count only finished ones), with its
 * attempt against the job's budget and when it tries again, so a job in trouble shows in the list.
 */
function latestRunResponse(run: LatestRun | null, job: JobEntity) {
  if (!run) {
    return null;
  }
  return {
    id: run.id,
    status: run.status,
    trigger: run.trigger,
    scheduled_at: run.scheduledAt.toISOString(),
    started_at: iso(run.startedAt),
    attempts_count: run.attemptsCount,
    max_attempts: job.retry.max_attempts,
    next_attempt_at: iso(run.nextAttemptAt),
    sla_breached: run.slaBreached,
  };
}
