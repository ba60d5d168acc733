import { DataSource, EntityManager } from 'typeorm';
import { AlertRuleEntity } from '../entities/alert-rule.entity';

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
export class AlertRulesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(AlertRuleEntity);
  }

  /** One page, newest first, strictly before `beforeId` when given. */
  async listPage(workspaceId: string, page: { beforeId?: string; limit: number }): Promise<AlertRuleRow[]> {
    const query = this.repo().createQueryBuilder('rule').where('rule.workspaceId = :workspaceId', { workspaceId });
    if (page.beforeId !== undefined) {
      query.andWhere('rule.id < :beforeId', { beforeId: page.beforeId });
    }
    return query.orderBy('rule.id', 'DESC').take(page.limit).getMany();
  }

  findById(workspaceId: string, id: string, manager?: EntityManager): Promise<AlertRuleRow | null> {
    return this.repo(manager).findOne({ where: { workspaceId, id } });
  }

  getForUpdate(workspaceId: string, id: string, manager: EntityManager): Promise<AlertRuleRow | null> {
    return this.repo(manager).findOne({ where: { workspaceId, id }, lock: { mode: 'pessimistic_write' } });
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
