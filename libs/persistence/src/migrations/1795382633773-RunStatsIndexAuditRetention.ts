import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 8: `GET /api/v1/stats/overview` and audit retention.
 *
 * - `idx_runs_workspace_scheduled` keeps its key (GET /runs: newest first, ties by id) and now
 *   also carries `status`, `sla_breached` and `start_lag_ms` (INCLUDE), so the overview's one
 *   aggregate over a window of runs is an index-only scan: its cost follows the runs in the window,
 *   not the size of the table. Replacing it (rather than adding a second index) keeps one index on
 *   the hot runs table.
 * - `idx_audit_log_created_at`: the retention cleanup deletes expired entries of every workspace.
 */
export class RunStatsIndexAuditRetention1795382633773 implements MigrationInterface {
  name = 'RunStatsIndexAuditRetention1795382633773';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_runs_workspace_scheduled"`);
    await queryRunner.query(
      `CREATE INDEX "idx_runs_workspace_scheduled" ON "runs" ("workspace_id", "scheduled_at" DESC, "id" DESC) INCLUDE ("status", "sla_breached", "start_lag_ms")`,
    );
    await queryRunner.query(`CREATE INDEX "idx_audit_log_created_at" ON "audit_log" ("created_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_audit_log_created_at"`);
    await queryRunner.query(`DROP INDEX "public"."idx_runs_workspace_scheduled"`);
    await queryRunner.query(
      `CREATE INDEX "idx_runs_workspace_scheduled" ON "runs" ("workspace_id", "scheduled_at" DESC, "id" DESC)`,
    );
  }
}
