/**
 * Everything the API, the worker and the workflows share about the Temporal side: workflow
 * names, signals, argument types and search attributes, defined once (style.md rule 20).
 * Deterministic-safe: only `@temporalio/workflow` definitions and plain types.
 */
import { defineSignal } from '@temporalio/workflow';

export type JobState = 'active' | 'paused' | 'disabled' | 'completed';
export type RunTrigger = 'schedule' | 'manual' | 'retry_manual';
export type MisfirePolicy = 'fire_once' | 'skip' | 'fire_all';
export type OverlapPolicy = 'allow' | 'skip' | 'queue' | 'cancel_previous';

/** The schedule as the job row stores it; computed into occurrences by a local activity. */
export interface ScheduleSnapshot {
  expr: string;
  kind: string;
  timezone: string;
  startsAt: string | null;
  endsAt: string | null;
  count: number | null;
  /** Reference instant (ISO) that phases intervals and anchors relative expressions. */
  anchor: string;
}

/** What the job workflow needs to time occurrences; no sink config or secrets ever enter history. */
export interface JobSnapshot {
  jobId: string;
  workspaceId: string;
  /** Bumped on every config or state change; older snapshots are ignored. */
  revision: number;
  version: number;
  state: JobState;
  schedule: ScheduleSnapshot;
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
}

export interface JobWorkflowInput {
  snapshot: JobSnapshot;
  /** Carried across continue-as-new: occurrences at or before this instant are done. */
  after?: string;
  firedCount?: number;
}

export interface RunWorkflowInput {
  runId: string;
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  /** ISO instant of the occurrence (nominal time). */
  scheduledAt: string;
  trigger: RunTrigger;
  /** Set when the run is recorded as skipped without delivery (misfire policies). */
  skipReason?: 'misfire';
  retryOf?: string;
}

export const jobChangedSignal = defineSignal<[JobSnapshot]>('jobChanged');
export const jobDeletedSignal = defineSignal<[]>('jobDeleted');

export const JOB_WORKFLOW = 'jobWorkflow';
export const RUN_WORKFLOW = 'runWorkflow';

/** Registered on the dev server by scripts/lib.sh and in docker-compose (names must match). */
export const SEARCH_ATTRIBUTES = {
  jobId: 'SvcJobId',
  workspaceId: 'SvcWorkspaceId',
  trigger: 'SvcTrigger',
} as const;

/** Workflow id of a job's long-running workflow: the job id itself (architecture.md). */
export function jobWorkflowId(jobId: string): string {
  return jobId;
}
