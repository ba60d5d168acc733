import { newId } from '@svc/workflow-contract/ids';
import { DataSource, EntityManager } from 'typeorm';
import { deleteCreatedBefore } from './delete-created-before';
import { andWhereTimePage } from './time-page';
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

export interface AuditListFilter {
  action?: string;
  actor?: string;
  target?: string;
  /** Inclusive lower bound on `created_at`. */
  from?: Date;
  /** Exclusive upper bound on `created_at`. */
  to?: Date;
  /**
   * Keyset: strictly after this (created_at DESC, id DESC) position. `at` is the previous
   * page's `cursorAt`, microsecond-exact, so entries sharing a millisecond are never skipped.
   */
  after?: { at: string; id: string };
  limit: number;
}

/** A listed entry with its exact position for the next page's keyset. */
export interface AuditListRow {
  entry: AuditLogEntity;
  /** `created_at` in UTC with microseconds (`2026-01-02T03:04:05.123456Z`). */
  cursorAt: string;
}

/** Deletes per statement in `deleteOlderThan`: keeps each transaction and its locks short. */
export const AUDIT_PURGE_BATCH = 5_000;

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
    // TypeORM fills `createdAt` from the INSERT's RETURNING clause: no second round trip.
    await manager.insert(AuditLogEntity, row);
    return row;
  }

  /**
   * Entries of the workspace, newest first (ties by id), filtered by exact `action`, `actor`,
   * `target` and a `created_at` range; on `idx_audit_log_workspace_created` or, with `action`,
   * `idx_audit_log_workspace_action_created`.
   */
  async list(workspaceId: string, filter: AuditListFilter): Promise<AuditListRow[]> {
    const query = this.dataSource.manager
      .createQueryBuilder(AuditLogEntity, 'audit')
      .addSelect(`to_char(audit.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'cursor_at')
      .where('audit.workspace_id = :workspaceId', { workspaceId });
    if (filter.action !== undefined) {
      query.andWhere('audit.action = :action', { action: filter.action });
    }
    if (filter.actor !== undefined) {
      query.andWhere('audit.actor = :actor', { actor: filter.actor });
    }
    if (filter.target !== undefined) {
      query.andWhere('audit.target = :target', { target: filter.target });
    }
    andWhereTimePage(query, { at: 'audit.created_at', id: 'audit.id' }, filter, 'CAST(:afterAt AS timestamptz)');
    const { entities, raw } = await query
      .orderBy('audit.created_at', 'DESC')
      .addOrderBy('audit.id', 'DESC')
      .limit(filter.limit)
      .getRawAndEntities<{ cursor_at: string }>();
    return entities.map((entry, i) => ({ entry, cursorAt: raw[i].cursor_at }));
  }

  /**
   * Retention (spec → Limits: audit entries are kept 30 days by default): deletes every entry of
   * every workspace created before `cutoff`, `batchSize` rows per statement, on
   * `idx_audit_log_created_at` (`deleteCreatedBefore`). Returns how many were deleted.
   */
  async deleteOlderThan(cutoff: Date, batchSize = AUDIT_PURGE_BATCH): Promise<number> {
    return deleteCreatedBefore(this.dataSource.manager, 'audit_log', cutoff, batchSize);
  }
}
