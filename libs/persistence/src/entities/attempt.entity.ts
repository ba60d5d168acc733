import { Entity, Index } from 'typeorm';
import { BelongsTo, IntegerColumn, JsonColumn, KeyColumn, TextColumn, TimestampColumn } from './columns';
import type { StartedWorkflowColumn } from './json';
import { RunEntity } from './run.entity';

export const ATTEMPT_OUTCOMES = ['success', 'retryable', 'fatal'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * One delivery try of a run; keyed by (run_id, n) so activity retries write idempotently.
 * `idx_attempts_body_finished_at` serves the response-body retention purge.
 */
@Entity({ name: 'attempts' })
@Index('idx_attempts_body_finished_at', ['finishedAt'], { where: '"response_body" IS NOT NULL' })
export class AttemptEntity {
  @KeyColumn('attempts', 'run_id')
  runId: string;

  /** 0 for the first attempt (equals `Svc-Attempt`). */
  @KeyColumn('attempts', 'n', 'integer')
  n: number;

  @TextColumn('workspace_id')
  workspaceId: string;

  @TimestampColumn('started_at')
  startedAt: Date;

  @TimestampColumn('finished_at', { nullable: true })
  finishedAt: Date | null;

  @IntegerColumn('duration_ms', { nullable: true })
  durationMs: number | null;

  @TextColumn('outcome', { nullable: true })
  outcome: AttemptOutcome | null;

  @IntegerColumn('status_code', { nullable: true })
  statusCode: number | null;

  @TextColumn('error', { nullable: true })
  error: string | null;

  @TextColumn('request_summary')
  requestSummary: string;

  @TextColumn('response_body', { nullable: true })
  responseBody: string | null;

  /** The workflow a `temporal_workflow` sink started (the latest attempt's, on the run). */
  @JsonColumn('started_workflow', { nullable: true })
  startedWorkflow: StartedWorkflowColumn | null;

  @BelongsTo('attempts', 'run', () => RunEntity)
  run?: RunEntity;
}
