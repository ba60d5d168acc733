import { Entity, Index } from 'typeorm';
import { BelongsTo, IntegerColumn, JsonColumn, KeyColumn, TextColumn } from './columns';
import { CreatedEntity } from './timestamps';
import { JsonValue } from './json';
import { WorkspaceEntity } from './workspace.entity';

/**
 * A replayable response for an `Idempotency-Key` (decisions.md → Idempotency). Inserted first
 * with `status_code` null (in progress), so concurrent duplicates collide on the primary key.
 */
@Entity({ name: 'idempotency_records' })
@Index('idx_idempotency_records_created_at', ['createdAt'])
export class IdempotencyRecordEntity extends CreatedEntity {
  @KeyColumn('idempotency_records', 'workspace_id')
  workspaceId: string;

  /** Method and route template, e.g. `POST /api/v1/jobs`. */
  @KeyColumn('idempotency_records', 'scope')
  scope: string;

  @KeyColumn('idempotency_records', 'key')
  key: string;

  /** Hash of the request body; a different body under the same key is a conflict. */
  @TextColumn('request_hash')
  requestHash: string;

  /** null while the first request is in progress. */
  @IntegerColumn('status_code', { nullable: true })
  statusCode: number | null;

  @JsonColumn('response_body', { nullable: true })
  responseBody: JsonValue | null;

  @BelongsTo('idempotency_records', 'workspace', () => WorkspaceEntity)
  workspace?: WorkspaceEntity;
}
