import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 45 (backfill): `backfills`, one row per backfill of a job's past range with how it was
 * asked (mode, `max_runs`, `skip_succeeded`, overrides) and the occurrences it covers, and
 * `backfill_items`, those occurrences, frozen when it was accepted. A run opened by a backfill
 * carries `trigger: 'backfill'` and `backfill_id` (nullable, no default: existing rows are not
 * rewritten). A backfill's first run of an occurrence joins the scheduled occurrence's unique
 * index, so the schedule and a backfill that meet at one instant write one run; a re-run of an
 * occurrence that ended already (`retry_of` set) is outside it, one per run it re-runs.
 */
export class Backfills1795400004900 implements MigrationInterface {
  name = 'Backfills1795400004900';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" ADD "backfill_id" text`);
    await queryRunner.query(`DROP INDEX "public"."uq_runs_scheduled_occurrence"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_runs_scheduled_occurrence" ON "runs" ("job_id", "scheduled_at") WHERE ("trigger" = 'schedule' OR "trigger" = 'backfill' AND "retry_of" IS NULL) AND "duplicate_of" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_runs_backfill_rerun" ON "runs" ("retry_of") WHERE "trigger" = 'backfill' AND "retry_of" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_runs_backfill" ON "runs" ("backfill_id") WHERE "backfill_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "backfills" ("id" text NOT NULL, "workspace_id" text NOT NULL, "job_id" text NOT NULL, "mode" text NOT NULL, "max_runs" integer NOT NULL, "skip_succeeded" boolean NOT NULL, "range_from" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "range_to" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "first_at" TIMESTAMP(3) WITH TIME ZONE, "last_at" TIMESTAMP(3) WITH TIME ZONE, "occurrences" integer NOT NULL, "overrides" jsonb, "status" text NOT NULL, "actor" text NOT NULL, "cancel_requested_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "pk_backfills" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_backfills_workspace_job" ON "backfills" ("workspace_id", "job_id", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "backfill_items" ("backfill_id" text NOT NULL, "seq" integer NOT NULL, "scheduled_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "state" text NOT NULL, "run_id" text, CONSTRAINT "pk_backfill_items" PRIMARY KEY ("backfill_id", "seq"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "backfills" ADD CONSTRAINT "fk_backfills_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "backfill_items" ADD CONSTRAINT "fk_backfill_items_backfill" FOREIGN KEY ("backfill_id") REFERENCES "backfills"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "backfill_items" DROP CONSTRAINT "fk_backfill_items_backfill"`);
    await queryRunner.query(`ALTER TABLE "backfills" DROP CONSTRAINT "fk_backfills_workspace"`);
    await queryRunner.query(`DROP TABLE "backfill_items"`);
    await queryRunner.query(`DROP INDEX "public"."idx_backfills_workspace_job"`);
    await queryRunner.query(`DROP TABLE "backfills"`);
    await queryRunner.query(`DROP INDEX "public"."idx_runs_backfill"`);
    await queryRunner.query(`DROP INDEX "public"."uq_runs_backfill_rerun"`);
    await queryRunner.query(`DROP INDEX "public"."uq_runs_scheduled_occurrence"`);
    // Backfill runs leave the index; schedule rows are as they were.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_runs_scheduled_occurrence" ON "runs" ("job_id", "scheduled_at") WHERE "trigger" = 'schedule' AND "duplicate_of" IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "backfill_id"`);
  }
}
