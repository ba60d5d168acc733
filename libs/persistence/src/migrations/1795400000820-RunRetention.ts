import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22: runs and their attempts are deleted `runs.retention` (default 30 days) after they
 * finished (decisions.md → Response bodies; docs/operations.md → Run retention). The partial
 * index holds terminal runs only, oldest finish first, so each purge batch is one index range scan
 * that never meets an open run; attempts go with their run (`fk_attempts_run` ON DELETE CASCADE,
 * served by the attempts primary key).
 */
export class RunRetention1795400000820 implements MigrationInterface {
  name = 'RunRetention1795400000820';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_runs_finished_terminal" ON "runs" ("finished_at") WHERE "status" IN ('succeeded', 'failed', 'skipped', 'cancelled')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_runs_finished_terminal"`);
  }
}
