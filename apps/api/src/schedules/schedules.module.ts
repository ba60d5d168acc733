import { Module } from '@nestjs/common';

/** POST /api/v1/schedules/validate and /preview (issue #3) land here. */
@Module({})
export class SchedulesModule {}
