import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 46 (bulk actions, recover): `operations`, one row per bulk action or recover with what it
 * was asked (action, filter, note, `resume_at`), and `operation_items`, the jobs or runs it matched,
 * frozen when it was accepted, each `pending` until its batch has handled it (so a retried batch
 * never handles an item twice). A job paused by a maintenance window shows why and until when
 * (`paused_note`, `resume_at`); nullable, no default: existing rows are untouched.
 */
export class BulkOperations1795400004800 implements MigrationInterface {
  name = 'BulkOperations1795400004800';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "jobs" ADD "paused_note" text`);
    await queryRunner.query(`ALTER TABLE "jobs" ADD "resume_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE TABLE "operations" ("id" text NOT NULL, "workspace_id" text NOT NULL, "kind" text NOT NULL, "action" text NOT NULL, "status" text NOT NULL, "actor" text NOT NULL, "note" text, "resume_at" TIMESTAMP WITH TIME ZONE, "filter" jsonb NOT NULL, "matched" integer NOT NULL, "cancel_requested_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "pk_operations" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_operations_workspace_id" ON "operations" ("workspace_id", "id")`);
    await queryRunner.query(
      `CREATE TABLE "operation_items" ("operation_id" text NOT NULL, "seq" integer NOT NULL, "target_id" text NOT NULL, "status" text NOT NULL, "error" text, "result_id" text, "resumed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "pk_operation_items" PRIMARY KEY ("operation_id", "seq"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "operations" ADD CONSTRAINT "fk_operations_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "operation_items" ADD CONSTRAINT "fk_operation_items_operation" FOREIGN KEY ("operation_id") REFERENCES "operations"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "operation_items" DROP CONSTRAINT "fk_operation_items_operation"`);
    await queryRunner.query(`ALTER TABLE "operations" DROP CONSTRAINT "fk_operations_workspace"`);
    await queryRunner.query(`DROP TABLE "operation_items"`);
    await queryRunner.query(`DROP INDEX "public"."idx_operations_workspace_id"`);
    await queryRunner.query(`DROP TABLE "operations"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "resume_at"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "paused_note"`);
  }
}
