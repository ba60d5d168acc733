import { Module } from '@nestjs/common';
import { BackfillWorkflowGateway } from '@svc/orchestration';
import { JobsModule } from '../jobs/jobs.module';
import { workflowGatewayProvider } from '../temporal/workflow-gateway.provider';
import { BackfillsController } from './backfills.controller';
import { BackfillsService } from './backfills.service';

@Module({
  imports: [JobsModule],
  controllers: [BackfillsController],
  providers: [
    BackfillsService,
    // Backfills run on the jobs task queue (the worker registers backfillWorkflow there).
    workflowGatewayProvider(BackfillWorkflowGateway),
  ],
})
export class BackfillsModule {}
