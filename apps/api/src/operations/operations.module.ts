import { Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { OperationWorkflowGateway } from '@svc/orchestration';
import type { Client } from '@temporalio/client';
import { APP_CONFIG } from '../config/config.module';
import { TEMPORAL_CLIENT } from '../temporal/temporal.module';
import { OperationsController } from './operations.controller';
import { OperationsService } from './operations.service';

@Module({
  controllers: [OperationsController],
  providers: [
    OperationsService,
    {
      // Operations run on the jobs task queue (the worker registers bulkOperationWorkflow there).
      provide: OperationWorkflowGateway,
      inject: [TEMPORAL_CLIENT, APP_CONFIG],
      useFactory: (client: Client, config: AppConfig) =>
        new OperationWorkflowGateway(client, config.temporal.task_queue),
    },
  ],
})
export class OperationsModule {}
