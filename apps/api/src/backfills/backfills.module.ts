import { Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { BackfillWorkflowGateway } from '@svc/orchestration';
import type { Client } from '@temporalio/client';
import { APP_CONFIG } from '../config/config.module';
import { JobsModule } from '../jobs/jobs.module';
import { TEMPORAL_CLIENT } from '../temporal/temporal.module';
import { BackfillsController } from './backfills.controller';
import { BackfillsService } from './backfills.service';

@Module({
  imports: [JobsModule],
  controllers: [BackfillsController],
  providers: [
    BackfillsService,
    {
      // Backfills run on the jobs task queue (the worker registers backfillWorkflow there).
      provide: BackfillWorkflowGateway,
      inject: [TEMPORAL_CLIENT, APP_CONFIG],
      useFactory: (client: Client, config: AppConfig) =>
        new BackfillWorkflowGateway(client, config.temporal.task_queue),
    },
  ],
})
export class BackfillsModule {}
