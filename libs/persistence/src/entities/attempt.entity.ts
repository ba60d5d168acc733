import type { StartedWorkflowColumn } from './json';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
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
  @PrimaryColumn({ name: 'run_id', type: 'text', primaryKeyConstraintName: 'pk_attempts' })
  runId: string;

  /** 0 for the first attempt (equals `Svc-Attempt`). */
  @PrimaryColumn({ name: 'n', type: 'integer', primaryKeyConstraintName: 'pk_attempts' })
  n: number;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs: number | null;

  @Column({ name: 'outcome', type: 'text', nullable: true })
  outcome: AttemptOutcome | null;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'error', type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'request_summary', type: 'text' })
  requestSummary: string;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  /** The workflow a `temporal_workflow` sink started (the latest attempt's, on the run). */
  @Column({ name: 'started_workflow', type: 'jsonb', nullable: true })
  startedWorkflow: StartedWorkflowColumn | null;

  @ManyToOne(() => RunEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id', foreignKeyConstraintName: 'fk_attempts_run' })
  run?: RunEntity;
}
