import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JsonValue } from './json';
import { WorkspaceEntity } from './workspace.entity';

/**
 * A replayable response for an `Idempotency-Key` (decisions.md → Idempotency). Inserted first
 * with `status_code` null (in progress), so concurrent duplicates collide on the primary key.
 */
@Entity({ name: 'idempotency_records' })
@Index('idx_idempotency_records_created_at', ['createdAt'])
export class IdempotencyRecordEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'text', primaryKeyConstraintName: 'pk_idempotency_records' })
  workspaceId: string;

  /** Method and route template, e.g. `POST /api/v1/jobs`. */
  @PrimaryColumn({ name: 'scope', type: 'text', primaryKeyConstraintName: 'pk_idempotency_records' })
  scope: string;

  @PrimaryColumn({ name: 'key', type: 'text', primaryKeyConstraintName: 'pk_idempotency_records' })
  key: string;

  /** Hash of the request body; a different body under the same key is a conflict. */
  @Column({ name: 'request_hash', type: 'text' })
  requestHash: string;

  /** null while the first request is in progress. */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: JsonValue | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_idempotency_records_workspace' })
  workspace?: WorkspaceEntity;
}
