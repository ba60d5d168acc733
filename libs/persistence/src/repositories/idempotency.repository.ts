import { DataSource } from 'typeorm';
import { IdempotencyRecordEntity } from '../entities/idempotency-record.entity';
import type { JsonValue } from '../entities/json';

/** Named queries over idempotency records; workspace id first (style.md rule 5). */
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Claims (workspace, scope, key) for one request; false when a record already holds it. */
  async claim(workspaceId: string, scope: string, key: string, requestHash: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_records (workspace_id, scope, key, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, scope, key) DO NOTHING RETURNING key`,
      [workspaceId, scope, key, requestHash],
    );
    return rows.length > 0;
  }

  async find(workspaceId: string, scope: string, key: string): Promise<IdempotencyRecordEntity | null> {
    return this.dataSource.manager.findOne(IdempotencyRecordEntity, { where: { workspaceId, scope, key } });
  }

  async complete(workspaceId: string, scope: string, key: string, statusCode: number, body: JsonValue): Promise<void> {
    await this.dataSource.manager.update(
      IdempotencyRecordEntity,
      { workspaceId, scope, key },
      { statusCode, responseBody: body },
    );
  }

  async release(workspaceId: string, scope: string, key: string): Promise<void> {
    await this.dataSource.manager.delete(IdempotencyRecordEntity, { workspaceId, scope, key });
  }

  /** Drops a record older than `before` so its key can be used again (24 h window). */
  async releaseIfOlder(workspaceId: string, scope: string, key: string, before: Date): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_records WHERE workspace_id = $1 AND scope = $2 AND key = $3 AND created_at < $4`,
      [workspaceId, scope, key, before],
    );
  }
}
