import { newId } from '@svc/workflow-contract/ids';
import { DataSource, EntityManager } from 'typeorm';
import { MembershipEntity, type MembershipRole } from '../entities/membership.entity';
import { UserEntity } from '../entities/user.entity';
import { WorkspaceEntity } from '../entities/workspace.entity';

/** A user's membership with its workspace loaded. */
export interface MembershipWithWorkspace {
  role: MembershipRole;
  workspace: WorkspaceEntity;
}

/** Named queries on users and their workspace memberships (dashboard sign-in). */
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The user with this email (lowercased), created with `name` when missing. Safe under
   * concurrent sign-ins of the same person (ON CONFLICT DO NOTHING, then read).
   */
  async findOrCreateByEmail(
    email: string,
    name: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ user: UserEntity; created: boolean }> {
    const normalized = email.toLowerCase();
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({ id: newId('user'), email: normalized, name })
      .orIgnore()
      .returning(['id'])
      .execute();
    const user = await manager.findOneByOrFail(UserEntity, { email: normalized });
    return { user, created: result.raw.length > 0 };
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<UserEntity | null> {
    return manager.findOneBy(UserEntity, { id });
  }

  /** Every membership of the user with its workspace, oldest membership first. */
  async listMemberships(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<MembershipWithWorkspace[]> {
    const rows = await manager.find(MembershipEntity, {
      where: { userId },
      relations: { workspace: true },
      order: { createdAt: 'ASC', workspaceId: 'ASC' },
    });
    return rows.filter((m) => m.workspace).map((m) => ({ role: m.role, workspace: m.workspace! }));
  }

  /**
   * The user's membership in the workspace named by `ref` (its id, or its slug), or null when
   * the workspace does not exist or the user is not a member: callers cannot tell the two apart.
   */
  async findMembership(
    userId: string,
    ref: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<MembershipWithWorkspace | null> {
    const byId = ref.startsWith('ws_');
    const row = await manager
      .createQueryBuilder(MembershipEntity, 'membership')
      .innerJoinAndSelect('membership.workspace', 'workspace')
      .where('membership.user_id = :userId', { userId })
      .andWhere(byId ? 'workspace.id = :ref' : 'workspace.slug = :ref', { ref })
      .getOne();
    return row?.workspace ? { role: row.role, workspace: row.workspace } : null;
  }

  /** Adds the user to the workspace with `role`; an existing membership keeps its role. */
  async addMembership(
    workspaceId: string,
    userId: string,
    role: MembershipRole,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(MembershipEntity)
      .values({ workspaceId, userId, role })
      .orIgnore()
      .execute();
  }
}
