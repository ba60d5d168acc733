import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 48: the worker's health probe's view of the service, for `/readyz` and the dashboard's
 * banner (docs/operations.md → Service degraded). Each worker keeps one row per dependency it sees
 * degraded, refreshed at every probe (`observed_at`) and deleted once it recovers; a row no probe
 * refreshed lately (a worker killed) counts for nothing and is purged after a day.
 */
export class ServiceHealth1795400005300 implements MigrationInterface {
  name = 'ServiceHealth1795400005300';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "service_health" ("observer" text NOT NULL, "dependency" text NOT NULL,
        "since" TIMESTAMP WITH TIME ZONE NOT NULL, "degraded_at" TIMESTAMP WITH TIME ZONE NOT NULL, "cause" text,
        "observed_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "PK_service_health" PRIMARY KEY ("observer", "dependency"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "service_health"`);
  }
}
