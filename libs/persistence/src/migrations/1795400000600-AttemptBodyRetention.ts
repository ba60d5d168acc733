import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 9: attempt response bodies are dropped `runs.body_retention` (default 7 days) after the
 * attempt finished (decisions.md → Response bodies). The partial index holds only attempts that
 * still have a body, oldest first, so each hourly purge is one index range scan and rows leave
 * the index as their body is cleared.
 */
export class AttemptBodyRetention1795400000600 implements MigrationInterface {
  name = 'AttemptBodyRetention1795400000600';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_attempts_body_finished_at" ON "attempts" ("finished_at") WHERE "response_body" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_attempts_body_finished_at"`);
  }
}
