import { Module } from '@nestjs/common';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobsController } from './jobs.controller';
import { JobsService } from './jobs.service';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';

@Module({
  controllers: [JobsController],
  providers: [JobsService, JobScheduleValidator, SinkValidator, SinkTemplateChecker, IdempotencyService],
})
export class JobsModule {}
