import { Module } from '@nestjs/common';
import { StatsController } from './stats.controller';
import { StatsService } from './stats.service';

/** `GET /api/v1/stats/overview` and `GET /api/v1/stats/jobs/hourly`. */
@Module({
  controllers: [StatsController],
  providers: [StatsService],
})
export class StatsModule {}
