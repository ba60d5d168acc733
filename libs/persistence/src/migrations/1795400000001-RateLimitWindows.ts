import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 13: rate limits shared by every API replica. One row per bucket (API key hash or peer
 * address) and window. UNLOGGED: counters are hot, short-lived and worth no WAL; after a crash
 * the table is empty, which only resets the current windows.
 */
export class RateLimitWindows1795400000001 implements MigrationInterface {
  name = 'RateLimitWindows1795400000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "rate_limit_windows" ("bucket" text NOT NULL, "reset_at" TIMESTAMP WITH TIME ZONE NOT NULL, "count" integer NOT NULL, CONSTRAINT "pk_rate_limit_windows" PRIMARY KEY ("bucket"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_rate_limit_windows_reset_at" ON "rate_limit_windows" ("reset_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "rate_limit_windows"`);
  }
}
