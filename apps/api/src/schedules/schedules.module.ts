import { Module } from '@nestjs/common';
import { ScheduleEndpointHooks } from './schedule-endpoint.hooks';
import { SchedulesController } from './schedules.controller';
import { SchedulesService } from './schedules.service';

/**
 * `POST /api/v1/schedules/validate` and `/preview` (issue #3). Needs only `APP_CONFIG` (from the
 * global ConfigModule) and, for its Fastify hooks, the HTTP adapter: no database, no Temporal.
 */
@Module({ controllers: [SchedulesController], providers: [SchedulesService, ScheduleEndpointHooks] })
export class SchedulesModule {}
