import { Controller, Get, Query } from '@nestjs/common';
import { AnyKey, Auth, type AuthContext } from '../common/auth/auth.decorators';
import { StatsOverviewQueryDto } from './dto/stats-overview-query.dto';
import { StatsService } from './stats.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { STATS_OVERVIEW_SCHEMA } from './stats-response.schema';

@Controller('api/v1/stats')
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  /** Job counts, run counts, start-lag percentiles and failing jobs; any valid key (decisions.md → Scopes). */
  @Get('overview')
  @AnyKey()
  @ApiOperation('Job and run counts, start-lag percentiles, failing jobs', { 200: STATS_OVERVIEW_SCHEMA })
  overview(@Auth() auth: AuthContext, @Query() query: StatsOverviewQueryDto) {
    return this.stats.overview(auth, query.window);
  }
}
