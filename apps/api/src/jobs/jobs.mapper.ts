import { formatDuration } from '@svc/common';
import type { JobEntity } from '@svc/persistence';
import { retryResponse } from './job-config';
import type { JobSettings } from './job-patch';

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
  stats24h?: JobStats24h;
  /** Only in the create and rotate responses, for webhook jobs. */
  signingSecret?: string;
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
      timezone: job.scheduleTimezone,
      starts_at: iso(job.scheduleStartsAt),
      ends_at: iso(job.scheduleEndsAt),
      count: job.scheduleCount,
    },
    sink: { kind: job.sinkKind, config: job.sinkConfig },
    retry: retryResponse(job.retry),
    timeout: formatDuration(job.timeoutMs),
    sla_threshold: job.slaThresholdMs === null ? null : formatDuration(job.slaThresholdMs),
    misfire_policy: job.misfirePolicy,
    overlap_policy: job.overlapPolicy,
    auto_disable_threshold: job.autoDisableThreshold,
    state: job.state,
    disabled_reason: job.disabledReason,
    consecutive_failures: job.consecutiveFailures,
    next_run_at: iso(extras.nextRunAt),
    ...(extras.nextRuns ? { next_runs: extras.nextRuns.map((d) => d.toISOString()) } : {}),
    ...(extras.stats24h ? { stats_24h: extras.stats24h } : {}),
    last_run_at: iso(job.lastRunAt),
    // `?? null`: a job built for insert (create answers from it) has no last_run_status property.
    last_run_status: job.lastRunStatus ?? null,
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
    schedule: {
      expr: job.scheduleExpr,
      kind: job.scheduleKind,
      timezone: job.scheduleTimezone,
      starts_at: iso(job.scheduleStartsAt),
      ends_at: iso(job.scheduleEndsAt),
      count: job.scheduleCount,
    },
    sink: { kind: job.sinkKind, config: { ...job.sinkConfig } },
    retry: retryResponse(job.retry),
    timeout: formatDuration(job.timeoutMs),
    sla_threshold: job.slaThresholdMs === null ? null : formatDuration(job.slaThresholdMs),
    misfire_policy: job.misfirePolicy,
    overlap_policy: job.overlapPolicy,
    auto_disable_threshold: job.autoDisableThreshold,
  };
}
