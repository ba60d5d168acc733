import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { WorkspaceEntity } from './workspace.entity';

/** Runs per workspace per UTC calendar month (`YYYY-MM`). */
@Entity({ name: 'usage_counters' })
export class UsageCounterEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'text', primaryKeyConstraintName: 'pk_usage_counters' })
  workspaceId: string;

  /** `YYYY-MM`, UTC. */
  @PrimaryColumn({ name: 'month', type: 'char', length: 7, primaryKeyConstraintName: 'pk_usage_counters' })
  month: string;

  @Column({ name: 'runs', type: 'integer', default: 0 })
  runs: number;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_usage_counters_workspace' })
  workspace?: WorkspaceEntity;
}
