import { Module } from '@nestjs/common';
import { OperationWorkflowGateway } from '@svc/orchestration';
import { workflowGatewayProvider } from '../temporal/workflow-gateway.provider';
import { OperationsController } from './operations.controller';
import { OperationsService } from './operations.service';

@Module({
  controllers: [OperationsController],
  providers: [
    OperationsService,
    // Operations run on the jobs task queue (the worker registers bulkOperationWorkflow there).
    workflowGatewayProvider(OperationWorkflowGateway),
  ],
})
export class OperationsModule {}
