import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 48, operators are told: `service.degraded` / `service.recovered` alert events belong to no
 * job (docs/alerts.md → Service events), so an event's `job_id` may be null. Their rules' cooldowns
 * are kept per dependency in `alert_cooldowns.job_id` as `service:<dependency>`.
 */
export class ServiceAlertEvents1795400005200 implements MigrationInterface {
  name = 'ServiceAlertEvents1795400005200';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "alert_events" ALTER COLUMN "job_id" DROP NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "alert_events" WHERE "job_id" IS NULL`);
    await queryRunner.query(`ALTER TABLE "alert_events" ALTER COLUMN "job_id" SET NOT NULL`);
  }
}
