import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 7: `/readyz` reports `writer_backpressure` from the oldest run that is due and has not
 * started its first attempt. The partial index holds only that backlog (rows leave it when their
 * first attempt starts), so the check stays one index probe however large `runs` grows.
 */
export class RunsAwaitingFirstAttemptIndex1795400000000 implements MigrationInterface {
  name = 'RunsAwaitingFirstAttemptIndex1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_runs_awaiting_first_attempt" ON "runs" ("scheduled_at") WHERE "status" = 'running' AND "started_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_runs_awaiting_first_attempt"`);
  }
}
