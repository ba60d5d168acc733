import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 46: a job's start window and run cap, and a run's planned time (its nominal time plus the
 * job's offset). Nullable, no default: existing rows are untouched (no rewrite) and mean what
 * they meant (no window, no cap, planned at `scheduled_at`).
 */
export class SpreadWindows1795400004700 implements MigrationInterface {
  name = 'SpreadWindows1795400004700';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "jobs" ADD "start_window_ms" integer`);
    await queryRunner.query(`ALTER TABLE "jobs" ADD "max_concurrent_runs" integer`);
    await queryRunner.query(`ALTER TABLE "runs" ADD "planned_at" TIMESTAMP(3) WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "planned_at"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "max_concurrent_runs"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "start_window_ms"`);
  }
}
