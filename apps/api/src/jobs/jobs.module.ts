import { Module } from '@nestjs/common';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobsController } from './jobs.controller';
import { JobsService } from './jobs.service';
import { SinkValidator } from './sink.validator';

@Module({
  controllers: [JobsController],
  providers: [JobsService, JobScheduleValidator, SinkValidator, IdempotencyService],
})
export class JobsModule {}
