import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 25: how many job workflows planned an occurrence at each instant, so a job can prepare
 * its run earlier when it shares its second with many others (docs/architecture.md → Bursts
 * prepared ahead). An estimate only: UNLOGGED (no WAL, emptied after a crash) and pruned after
 * an hour by the worker.
 */
export class OccurrenceBursts1795400000900 implements MigrationInterface {
  name = 'OccurrenceBursts1795400000900';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "occurrence_bursts" ("at" timestamptz PRIMARY KEY, "planned" integer NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "occurrence_bursts"`);
  }
}
