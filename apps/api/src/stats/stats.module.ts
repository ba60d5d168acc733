import { Module } from '@nestjs/common';
import { StatsController } from './stats.controller';
import { StatsService } from './stats.service';
import { HourlyStatsService } from './hourly-stats.service';

/** `GET /api/v1/stats/overview` and `GET /api/v1/stats/jobs/hourly`. */
@Module({
  controllers: [StatsController],
  providers: [StatsService, HourlyStatsService],
})
export class StatsModule {}
