import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';
import { TimestampedEntity } from './timestamps';

/** A tenant. Everything else is scoped to one (spec: Resources → Workspace). */
@Entity({ name: 'workspaces' })
@Unique('uq_workspaces_slug', ['slug'])
export class WorkspaceEntity extends TimestampedEntity {
  /** `ws_<ulid>` */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_workspaces' })
  id: string;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'slug', type: 'text' })
  slug: string;

  /** Plan name; plans and their limits come from config (decisions.md → Plans and limits). */
  @Column({ name: 'plan', type: 'text' })
  plan: string;

  /** Set while suspended: reads allowed, mutations 403, scheduled runs skipped. */
  @Column({ name: 'suspended_at', type: 'timestamptz', nullable: true })
  suspendedAt: Date | null;

  /**
   * Task-queue patterns the workspace's `temporal_workflow` jobs may target, narrowing the
   * server's allowlist (docs/security.md); null: the server's list as is.
   */
  @Column({ name: 'temporal_workflow_task_queues', type: 'jsonb', nullable: true })
  temporalWorkflowTaskQueues: string[] | null;
}
