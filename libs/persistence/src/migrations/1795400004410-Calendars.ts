import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 45 (calendars): `calendars`, a workspace's named sets of dates (`YYYY-MM-DD` text, so no
 * time zone ever shifts a day), and `jobs.exclude_calendars`, the calendars whose days a job's
 * schedule excludes. A constant default: existing job rows are not rewritten. The GIN index serves
 * "which jobs use this calendar" (a calendar in use cannot be deleted).
 */
export class Calendars1795400004410 implements MigrationInterface {
  name = 'Calendars1795400004410';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "calendars" ("workspace_id" text NOT NULL, "name" text NOT NULL, "dates" text array NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_calendars" PRIMARY KEY ("workspace_id", "name"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "calendars" ADD CONSTRAINT "fk_calendars_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "jobs" ADD "exclude_calendars" text array NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`CREATE INDEX "idx_jobs_exclude_calendars" ON "jobs" USING gin ("exclude_calendars")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_jobs_exclude_calendars"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP COLUMN "exclude_calendars"`);
    await queryRunner.query(`DROP TABLE "calendars"`);
  }
}
