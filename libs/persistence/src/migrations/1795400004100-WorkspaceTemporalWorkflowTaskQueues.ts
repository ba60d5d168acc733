import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 41: a workspace admin narrows the server's task-queue allowlist of the `temporal_workflow`
 * sink (`temporal_workflow_task_queues`, a JSON list of patterns). Nullable, no default: every
 * existing workspace keeps the server's list as is (no rewrite).
 */
export class WorkspaceTemporalWorkflowTaskQueues1795400004100 implements MigrationInterface {
  name = 'WorkspaceTemporalWorkflowTaskQueues1795400004100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "temporal_workflow_task_queues" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "temporal_workflow_task_queues"`);
  }
}
