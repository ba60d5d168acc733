import { Module } from '@nestjs/common';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobsController } from './jobs.controller';
import { JobsService } from './jobs.service';
import { SinkValidator } from './sink.validator';

@Module({ controllers: [JobsController], providers: [JobsService, JobScheduleValidator, SinkValidator] })
export class JobsModule {}
