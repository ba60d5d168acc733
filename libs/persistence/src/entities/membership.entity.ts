import { Check, Entity, Index } from 'typeorm';
import { BelongsTo, KeyColumn, TextColumn } from './columns';
import { CreatedEntity } from './timestamps';
import { UserEntity } from './user.entity';
import { WorkspaceEntity } from './workspace.entity';

export const MEMBERSHIP_ROLES = ['owner', 'admin', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** A user's role in a workspace. */
@Entity({ name: 'memberships' })
@Check('ck_memberships_role', `"role" IN ('owner', 'admin', 'member')`)
@Index('idx_memberships_user_id', ['userId'])
export class MembershipEntity extends CreatedEntity {
  @KeyColumn('memberships', 'workspace_id')
  workspaceId: string;

  @KeyColumn('memberships', 'user_id')
  userId: string;

  @TextColumn('role')
  role: MembershipRole;

  @BelongsTo('memberships', 'workspace', () => WorkspaceEntity)
  workspace?: WorkspaceEntity;

  @BelongsTo('memberships', 'user', () => UserEntity)
  user?: UserEntity;
}
