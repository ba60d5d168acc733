import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';
import { WorkspaceEntity } from './workspace.entity';

export const MEMBERSHIP_ROLES = ['owner', 'admin', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** A user's role in a workspace. */
@Entity({ name: 'memberships' })
@Check('ck_memberships_role', `"role" IN ('owner', 'admin', 'member')`)
@Index('idx_memberships_user_id', ['userId'])
export class MembershipEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'text', primaryKeyConstraintName: 'pk_memberships' })
  workspaceId: string;

  @PrimaryColumn({ name: 'user_id', type: 'text', primaryKeyConstraintName: 'pk_memberships' })
  userId: string;

  @Column({ name: 'role', type: 'text' })
  role: MembershipRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_memberships_workspace' })
  workspace?: WorkspaceEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_memberships_user' })
  user?: UserEntity;
}
