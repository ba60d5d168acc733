import { Entity } from 'typeorm';
import { BelongsTo, IntegerColumn, KeyColumn } from './columns';
import { WorkspaceEntity } from './workspace.entity';

/** Runs per workspace per UTC calendar month (`YYYY-MM`). */
@Entity({ name: 'usage_counters' })
export class UsageCounterEntity {
  @KeyColumn('usage_counters', 'workspace_id')
  workspaceId: string;

  /** `YYYY-MM`, UTC. */
  @KeyColumn('usage_counters', 'month', 'char', { length: 7 })
  month: string;

  @IntegerColumn('runs', { default: 0 })
  runs: number;

  @BelongsTo('usage_counters', 'workspace', () => WorkspaceEntity)
  workspace?: WorkspaceEntity;
}
