/**
 * FROZEN: argument and activity types of the workflows before the one-activity occurrence path,
 * kept so pre-upgrade executions and their recorded histories keep working (see legacy/*.v1.ts).
 */
import type { JobSnapshot, RunTrigger } from '@svc/workflow-contract/definitions';

export interface LegacyJobWorkflowInput {
  snapshot: JobSnapshot;
  after?: string;
  firedCount?: number;
}

export interface LegacyRunWorkflowInput {
  runId: string;
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  scheduledAt: string;
  trigger: RunTrigger;
  skipReason?: 'misfire';
  retryOf?: string;
}

export interface LegacyRunRetryPlan {
  maxAttempts: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
  multiplier: number;
}

export type LegacyClaimResult =
  | { action: 'deliver'; timeoutMs: number; retry: LegacyRunRetryPlan }
  | { action: 'wait'; timeoutMs: number; retry: LegacyRunRetryPlan }
  | { action: 'done'; status: string };

export interface LegacyRunActivities {
  claimRun(input: LegacyRunWorkflowInput): Promise<LegacyClaimResult>;
  finishRun(input: {
    runId: string;
    status: 'succeeded' | 'failed' | 'cancelled';
    error?: string | null;
  }): Promise<void>;
  markJobCompleted(input: { jobId: string; revision: number }): Promise<void>;
  awaitTurn(input: { runId: string }): Promise<void>;
}

export interface LegacyDeliveryActivities {
  deliverAttempt(input: { runId: string }): Promise<{ statusCode: number | null }>;
}
