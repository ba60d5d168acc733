/**
 * Type-only contracts of the activities the workflows call; the worker implements them in
 * apps/worker/src/activities. Kept here so workflow code never imports worker code.
 */
import type { JobSnapshot, RunWorkflowInput, ScheduleSnapshot } from './definitions';

export interface PlanOccurrencesInput {
  schedule: ScheduleSnapshot;
  /** Occurrences at or before this instant are done (ISO). */
  after: string;
  /** The workflow's clock (ISO). */
  now: string;
  misfireThresholdMs: number;
  maxCatchUp: number;
}

export interface OccurrencePlan {
  /** Due within the misfire threshold: each one fires (ISO, ascending). */
  onTime: string[];
  /** The latest missed occurrences (at most maxCatchUp), older than the threshold. */
  missed: string[];
  missedTotal: number;
  /** First occurrence after `now`, or null. */
  next: string | null;
  /** Everything up to here was examined (the next `after`). */
  scannedUntil: string;
  /** True when the series has no occurrence after `scannedUntil`. */
  ended: boolean;
  /** Set when the schedule no longer compiles. */
  error?: string;
}

export interface ScheduleActivities {
  planOccurrences(input: PlanOccurrencesInput): Promise<OccurrencePlan>;
}

export interface RunRetryPlan {
  maxAttempts: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
  multiplier: number;
}

export type ClaimResult =
  | { action: 'deliver'; timeoutMs: number; retry: RunRetryPlan }
  /** overlap_policy `queue`: wait for the job's in-flight run to end, then deliver. */
  | { action: 'wait'; timeoutMs: number; retry: RunRetryPlan }
  | { action: 'done'; status: string };

export interface FinishRunInput {
  runId: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  error?: string | null;
}

export interface RunActivities {
  claimRun(input: RunWorkflowInput): Promise<ClaimResult>;
  finishRun(input: FinishRunInput): Promise<void>;
  markJobCompleted(input: { jobId: string; revision: number }): Promise<void>;
  /** Resolves once no other run of the job is in flight, then marks this one running. */
  awaitTurn(input: { runId: string }): Promise<void>;
}

export interface DeliveryActivities {
  /** One delivery attempt; the attempt number is Temporal's activity attempt − 1. */
  deliverAttempt(input: { runId: string }): Promise<{ statusCode: number | null }>;
}

export type { JobSnapshot };
