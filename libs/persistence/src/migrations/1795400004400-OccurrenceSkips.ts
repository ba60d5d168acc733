import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 45 (skip one occurrence): `jobs.occurrence_skips`, the upcoming occurrences a user skipped
 * (ISO instant → `{ note, created_at }`), on the job row because the attempt's claim reads that row
 * anyway (no extra read per run); and `runs.skip_note`, the note a skipped run carries. A constant
 * default and a nullable column: existing rows are not rewritten.
 */
export class OccurrenceSkips1795400004400 implements MigrationInterface {
  name = 'OccurrenceSkips1795400004400';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "jobs" ADD "occurrence_skips" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`ALTER TABLE "runs" ADD "skip_note" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "skip_note"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "occurrence_skips"`);
  }
}
