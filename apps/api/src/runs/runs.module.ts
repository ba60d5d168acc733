import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { ResponseBodyRetentionTask } from './response-body-retention.task';
import { RunRetentionTask } from './run-retention.task';
import { RunCancelService, RunRetryService } from './run-retry.service';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';
import { StuckRunsService } from './stuck-runs.service';

@Module({
  imports: [JobsModule],
  controllers: [RunsController],
  providers: [
    RunsService,
    RunRetryService,
    RunCancelService,
    StuckRunsService,
    ResponseBodyRetentionTask,
    RunRetentionTask,
  ],
})
export class RunsModule {}
