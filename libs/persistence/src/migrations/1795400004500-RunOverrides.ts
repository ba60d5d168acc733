import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 45: a trigger, manual retry or backfill may carry per-run overrides of the job's sink
 * (`body`, `headers`, `vars`; `args`, `memo`, `search_attributes`); the run records them and its
 * attempts send with them. Nullable, no default: existing rows are untouched (no rewrite).
 */
export class RunOverrides1795400004500 implements MigrationInterface {
  name = 'RunOverrides1795400004500';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" ADD "overrides" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "overrides"`);
  }
}
