import { Module } from '@nestjs/common';
import { RunRetryService } from './run-retry.service';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

@Module({ controllers: [RunsController], providers: [RunsService, RunRetryService] })
export class RunsModule {}
