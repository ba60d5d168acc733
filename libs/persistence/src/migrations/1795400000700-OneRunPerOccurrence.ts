import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 21: a scheduled run is unique by its occurrence (job, scheduled_at). Occurrences that
 * older code recorded twice (a job-workflow task retried after a crash minted a second id) keep
 * every row they have, as history: all but one are marked `duplicate_of` the kept one (the one
 * that got furthest: most attempts, then the earliest) and left out of the unique index, and a
 * duplicate still open without any attempt (its workflow never started) is closed `cancelled`.
 * `idx_runs_open` serves the stalled-run sweep (runs open with no progress).
 */
export class OneRunPerOccurrence1795400000700 implements MigrationInterface {
  name = 'OneRunPerOccurrence1795400000700';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" ADD "duplicate_of" text`);
    await queryRunner.query(
      `WITH ranked AS (
         SELECT id, first_value(id) OVER w AS kept, row_number() OVER w AS rank
           FROM runs WHERE trigger = 'schedule'
         WINDOW w AS (PARTITION BY job_id, scheduled_at ORDER BY attempts_count DESC, created_at, id))
       UPDATE runs SET duplicate_of = ranked.kept,
              status = CASE WHEN runs.status IN ('running', 'deferred') AND runs.attempts_count = 0
                            THEN 'cancelled' ELSE runs.status END,
              finished_at = CASE WHEN runs.status IN ('running', 'deferred') AND runs.attempts_count = 0
                                 THEN now() ELSE runs.finished_at END,
              last_error = CASE WHEN runs.status IN ('running', 'deferred') AND runs.attempts_count = 0
                                THEN 'duplicate of run ' || ranked.kept ELSE runs.last_error END
         FROM ranked WHERE runs.id = ranked.id AND ranked.rank > 1`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_runs_scheduled_occurrence" ON "runs" ("job_id", "scheduled_at") WHERE "trigger" = 'schedule' AND "duplicate_of" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_runs_open" ON "runs" ("updated_at") WHERE "status" IN ('running', 'deferred')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_runs_open"`);
    await queryRunner.query(`DROP INDEX "public"."uq_runs_scheduled_occurrence"`);
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "duplicate_of"`);
  }
}
