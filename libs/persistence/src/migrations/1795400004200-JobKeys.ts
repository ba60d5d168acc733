import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 42 (jobs as code): a job's optional `key`, unique per workspace, and `managed_by`, who
 * declares it (`git:infra/jobs.yaml`, `app:billing`). Nullable, no default: existing rows are
 * untouched (no rewrite). The partial unique index is the backstop of every create by key (PUT by
 * key, POST with a key, apply): two writers racing for one key cannot both insert. The second
 * index serves an apply's read of its owner's jobs (`managed_by = $1`) and the list filter.
 */
export class JobKeys1795400004200 implements MigrationInterface {
  name = 'JobKeys1795400004200';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "jobs" ADD "key" text`);
    await queryRunner.query(`ALTER TABLE "jobs" ADD "managed_by" text`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_jobs_workspace_key" ON "jobs" ("workspace_id", "key") WHERE "key" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_jobs_workspace_managed_by" ON "jobs" ("workspace_id", "managed_by") WHERE "managed_by" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_jobs_workspace_managed_by"`);
    await queryRunner.query(`DROP INDEX "uq_jobs_workspace_key"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "managed_by"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "key"`);
  }
}
