import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * A dashboard sign-in (decisions.md → Sessions). The cookie carries a random token; only its
 * SHA-256 is stored, as the key, so a database read never yields a usable session.
 */
@Entity({ name: 'sessions' })
@Index('idx_sessions_user_id', ['userId'])
@Index('idx_sessions_expires_at', ['expiresAt'])
export class SessionEntity {
  /** Hex SHA-256 of the cookie's token. */
  @PrimaryColumn({ name: 'token_hash', type: 'text', primaryKeyConstraintName: 'pk_sessions' })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  /** How the user signed in: `dev`, `github`, `google` or `oidc`. */
  @Column({ name: 'provider', type: 'text' })
  provider: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_sessions_user' })
  user?: UserEntity;
}
