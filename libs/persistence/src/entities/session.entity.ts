import { Entity, Index } from 'typeorm';
import { BelongsTo, KeyColumn, TextColumn, TimestampColumn } from './columns';
import { CreatedEntity } from './timestamps';
import { UserEntity } from './user.entity';

/**
 * A dashboard sign-in (decisions.md → Sessions). The cookie carries a random token; only its
 * SHA-256 is stored, as the key, so a database read never yields a usable session.
 */
@Entity({ name: 'sessions' })
@Index('idx_sessions_user_id', ['userId'])
@Index('idx_sessions_expires_at', ['expiresAt'])
export class SessionEntity extends CreatedEntity {
  /** Hex SHA-256 of the cookie's token. */
  @KeyColumn('sessions', 'token_hash')
  tokenHash: string;

  @TextColumn('user_id')
  userId: string;

  /** How the user signed in: `dev`, `github`, `google` or `oidc`. */
  @TextColumn('provider')
  provider: string;

  @TimestampColumn('expires_at')
  expiresAt: Date;

  @BelongsTo('sessions', 'user', () => UserEntity)
  user?: UserEntity;
}
