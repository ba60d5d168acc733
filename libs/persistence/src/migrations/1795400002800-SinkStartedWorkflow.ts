import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 28: a `temporal_workflow` sink starts a workflow per attempt; the attempt and its run
 * record which one (`{namespace, workflow_id, run_id}`), so `GET /runs/{id}` and the dashboard can
 * link to it in the Temporal UI. Nullable, no default: existing rows are untouched (no rewrite).
 */
export class SinkStartedWorkflow1795400002800 implements MigrationInterface {
  name = 'SinkStartedWorkflow1795400002800';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "attempts" ADD "started_workflow" jsonb`);
    await queryRunner.query(`ALTER TABLE "runs" ADD "started_workflow" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "started_workflow"`);
    await queryRunner.query(`ALTER TABLE "attempts" DROP COLUMN "started_workflow"`);
  }
}
