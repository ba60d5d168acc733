import type { AppConfig } from '@svc/common';
import type { JobEntity } from '@svc/persistence';
import type { JobSnapshot } from '@svc/workflow-contract/definitions';
import { toScheduleSnapshot } from './job-schedule';
import { startOffsetMs } from './start-window';
import { describeForTemporal } from './temporal-display';

/**
 * What the job workflow is told about a job: timing, plus the secret-free display the Temporal Web
 * UI shows (`describeForTemporal`: method and host, never the URL, headers or secrets).
 */
export function toJobSnapshot(job: JobEntity, config: AppConfig): JobSnapshot {
  return {
    jobId: job.id,
    workspaceId: job.workspaceId,
    revision: job.revision,
    version: job.version,
    state: job.state,
    schedule: toScheduleSnapshot(job),
    misfirePolicy: job.misfirePolicy,
    // For workers of the previous release only (JobSnapshot.misfireThresholdMs).
    misfireThresholdMs: config.scheduler.misfire_threshold_ms,
    overlapPolicy: job.overlapPolicy,
    prepareAheadMs: config.scheduler.prepare_ahead_ms,
    display: describeForTemporal(job),
    // Absent unless set, so a job without them keeps the snapshot (and plans) it had.
    ...(startOffsetMs(job.id, job.startWindowMs) > 0
      ? { startOffsetMs: startOffsetMs(job.id, job.startWindowMs) }
      : {}),
    ...(job.overlapPolicy === 'allow' && job.maxConcurrentRuns ? { maxConcurrentRuns: job.maxConcurrentRuns } : {}),
    // The workflow plans the change from here, however late it hears of it.
    ...(job.updatedAt ? { committedAt: job.updatedAt.toISOString() } : {}),
  };
}
