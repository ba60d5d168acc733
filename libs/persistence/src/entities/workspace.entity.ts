import { Entity, Unique } from 'typeorm';
import { IdColumn, JsonColumn, TextColumn, TimestampColumn } from './columns';
import { TimestampedEntity } from './timestamps';
/** A tenant. Everything else is scoped to one (spec: Resources → Workspace). */
@Entity({ name: 'workspaces' })
@Unique('uq_workspaces_slug', ['slug'])
export class WorkspaceEntity extends TimestampedEntity {
  /** `ws_<ulid>` */
  @IdColumn('workspaces')
  id: string;

  @TextColumn('name')
  name: string;

  @TextColumn('slug')
  slug: string;

  /** Plan name; plans and their limits come from config (decisions.md → Plans and limits). */
  @TextColumn('plan')
  plan: string;

  /** Set while suspended: reads allowed, mutations 403, scheduled runs skipped. */
  @TimestampColumn('suspended_at', { nullable: true })
  suspendedAt: Date | null;

  /**
   * Task-queue patterns the workspace's `temporal_workflow` jobs may target, narrowing the
   * server's allowlist (docs/security.md); null: the server's list as is.
   */
  @JsonColumn('temporal_workflow_task_queues', { nullable: true })
  temporalWorkflowTaskQueues: string[] | null;
}
