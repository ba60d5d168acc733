import { Entity, Index, Unique } from 'typeorm';
import { TextColumn, TimestampColumn } from './columns';
import { CreatedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';

/**
 * An API key. Only the SHA-256 of the key is stored (decisions.md → API key format); `keyHash`
 * is `select: false` so it never leaves a query by accident (style.md rule 2).
 * Ids are `key_<ulid>`.
 */
@Entity({ name: 'api_keys' })
@Unique('uq_api_keys_key_hash', ['keyHash'])
@Index('idx_api_keys_workspace_id', ['workspaceId', 'id'])
export class ApiKeyEntity extends WorkspaceRow('api_keys', CreatedEntity) {
  @TextColumn('name')
  name: string;

  /** `sjs_` + the key's first 8 characters after it; safe to show. */
  @TextColumn('prefix')
  prefix: string;

  /** Hex SHA-256 of the full key. */
  @TextColumn('key_hash', { select: false })
  keyHash: string;

  @TextColumn('scopes', { array: true })
  scopes: string[];

  @TimestampColumn('last_used_at', { nullable: true })
  lastUsedAt: Date | null;

  @TimestampColumn('revoked_at', { nullable: true })
  revokedAt: Date | null;
}
