import { DataSource, EntityManager } from 'typeorm';
import { AlertRuleEntity } from '../entities/alert-rule.entity';
import { WorkspaceRowsRepository } from './workspace-rows';

export type AlertRuleRow = Omit<AlertRuleEntity, 'workspace'>;

export interface AlertRuleValues {
  name: string;
  enabled: boolean;
  channelIds: string[];
  events: string[];
  jobIds: string[] | null;
  tags: string[] | null;
  cooldownMs: number;
}

/** Named queries on alert rules (docs/alerts.md); the workspace id is always the first argument. */
export class AlertRulesRepository extends WorkspaceRowsRepository<AlertRuleEntity, AlertRuleRow> {
  constructor(dataSource: DataSource) {
    super(dataSource, AlertRuleEntity, 'rule');
  }

  async insert(
    workspaceId: string,
    id: string,
    values: AlertRuleValues,
    manager: EntityManager,
  ): Promise<AlertRuleRow> {
    await this.repo(manager).insert({ id, workspaceId, ...values });
    return (await this.findById(workspaceId, id, manager))!;
  }

  async update(
    workspaceId: string,
    id: string,
    values: AlertRuleValues,
    manager: EntityManager,
  ): Promise<AlertRuleRow | null> {
    await this.repo(manager).update({ workspaceId, id }, { ...values, updatedAt: new Date() });
    return this.findById(workspaceId, id, manager);
  }

  async delete(workspaceId: string, id: string, manager: EntityManager): Promise<boolean> {
    const result = await this.repo(manager).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Which of `ids` are jobs of the workspace (rule `job_ids` must name existing jobs). */
  async existingJobIds(workspaceId: string, ids: readonly string[], manager: EntityManager): Promise<string[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows: Array<{ id: string }> = await manager.query(
      `SELECT id FROM jobs WHERE workspace_id = $1 AND id = ANY($2::text[])`,
      [workspaceId, [...ids]],
    );
    return rows.map((row) => row.id);
  }
}
