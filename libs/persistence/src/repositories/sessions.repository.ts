import { DataSource, EntityManager, LessThan } from 'typeorm';
import { SessionEntity } from '../entities/session.entity';
import { UserEntity } from '../entities/user.entity';

export interface CreateSessionInput {
  /** Hex SHA-256 of the cookie's token; the token itself is never stored. */
  tokenHash: string;
  userId: string;
  provider: string;
  expiresAt: Date;
}

export interface ActiveSession {
  session: SessionEntity;
  user: UserEntity;
}

/** Named queries on dashboard sessions, keyed by the hash of the cookie's token. */
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: CreateSessionInput, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.insert(SessionEntity, input);
  }

  /**
   * The authentication lookup: the unexpired session with this token hash, with its user.
   * Equality on the primary key of a SHA-256 digest: no timing oracle on the token itself.
   */
  async findActiveByHash(tokenHash: string, now: Date = new Date()): Promise<ActiveSession | null> {
    const row = await this.dataSource.manager
      .createQueryBuilder(SessionEntity, 'session')
      .innerJoinAndSelect('session.user', 'user')
      .where('session.token_hash = :tokenHash', { tokenHash })
      .andWhere('session.expires_at > :now', { now })
      .getOne();
    if (!row?.user) {
      return null;
    }
    const { user, ...session } = row;
    return { session: Object.assign(new SessionEntity(), session), user };
  }

  /** Ends the session (sign-out); a no-op for an unknown hash. */
  async delete(tokenHash: string): Promise<void> {
    await this.dataSource.manager.delete(SessionEntity, { tokenHash });
  }

  /** Deletes the user's expired sessions (run at each sign-in, so rows do not pile up). */
  async deleteExpiredOfUser(
    userId: string,
    now: Date = new Date(),
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.delete(SessionEntity, { userId, expiresAt: LessThan(now) });
  }
}
