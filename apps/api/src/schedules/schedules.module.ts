import { Module } from '@nestjs/common';
import { ScheduleRoutes } from './schedule.routes';
import { SchedulesService } from './schedules.service';

/**
 * `POST /api/v1/schedules/validate` and `/preview`. Needs only `APP_CONFIG` (from the
 * global ConfigModule) and the HTTP adapter: no database, no Temporal.
 */
@Module({ providers: [SchedulesService, ScheduleRoutes] })
export class SchedulesModule {}
