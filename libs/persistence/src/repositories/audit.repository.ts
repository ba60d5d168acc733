import { newId } from '@svc/common/ids';
import { DataSource, EntityManager } from 'typeorm';
import { AuditLogEntity } from '../entities/audit-log.entity';
import { JsonObject } from '../entities/json';

export interface AuditEntryInput {
  /** `user:<id>`, `key:<id>` or `system`. */
  actor: string;
  /** e.g. `job.create`, `api_key.create` (decisions.md → Audit actions). */
  action: string;
  target: string;
  /** Never a secret value. */
  details?: JsonObject;
}

/** Writes audit entries. Pass the transaction's manager so the entry commits with the change. */
export class AuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    workspaceId: string,
    entry: AuditEntryInput,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<AuditLogEntity> {
    const row = manager.create(AuditLogEntity, {
      id: newId('audit'),
      workspaceId,
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      details: entry.details ?? {},
    });
    await manager.insert(AuditLogEntity, row);
    return manager.findOneByOrFail(AuditLogEntity, { workspaceId, id: row.id });
  }
}
