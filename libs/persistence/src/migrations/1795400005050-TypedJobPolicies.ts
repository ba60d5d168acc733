import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 50: a job's misfire and overlap policies are checked by the table, as the API and the
 * workflow type them (`MISFIRE_POLICIES`, `OVERLAP_POLICIES` in temporal/workflows/definitions.ts).
 * The API has always refused other values, so existing rows pass.
 */
export class TypedJobPolicies1795400005050 implements MigrationInterface {
  name = 'TypedJobPolicies1795400005050';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "jobs" ADD CONSTRAINT "ck_jobs_misfire_policy" CHECK ("misfire_policy" IN ('fire_once', 'skip', 'fire_all'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "jobs" ADD CONSTRAINT "ck_jobs_overlap_policy" CHECK ("overlap_policy" IN ('allow', 'skip', 'queue', 'cancel_previous'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "jobs" DROP CONSTRAINT "ck_jobs_overlap_policy"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP CONSTRAINT "ck_jobs_misfire_policy"`);
  }
}
