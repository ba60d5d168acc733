import { Controller, Get, Query } from '@nestjs/common';
import { AnyKey, Auth, type AuthContext } from '../auth/auth.decorators';
import { StatsOverviewQueryDto } from './dto/stats-overview-query.dto';
import { StatsService } from './stats.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { JOB_HOURLY_STATS_SCHEMA, STATS_OVERVIEW_SCHEMA } from './stats-response.schema';
import { JobHourlyQueryDto } from './dto/job-hourly-query.dto';
import { GetRoute } from '../auth/route.decorators';
import { ANY_KEY } from '../auth/scopes';

@Controller('api/v1/stats')
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  /** Job counts, run counts, start-lag percentiles and failing jobs; any valid key (decisions.md → Scopes). */
  @GetRoute('overview', ANY_KEY, 'Job and run counts, start-lag percentiles, failing jobs', STATS_OVERVIEW_SCHEMA)
  overview(@Auth() auth: AuthContext, @Query() query: StatsOverviewQueryDto) {
    return this.stats.overview(auth, query.window);
  }

  /** Runs per job and hour (the dashboard's sparklines); any valid key, like the overview. */
  @Get('jobs/hourly')
  @AnyKey()
  @ApiOperation(
    'Runs per job and hour by outcome',
    { 200: JOB_HOURLY_STATS_SCHEMA },
    'Whole UTC hours, oldest first, the last one the current hour (24 buckets for `24h`), zero-filled. ' +
      'With `job_id` (comma-separated or repeated, at most 200) one entry per named job; without, ' +
      'every job of the workspace with runs in the window. `other` counts running, deferred and cancelled runs.',
  )
  jobsHourly(@Auth() auth: AuthContext, @Query() query: JobHourlyQueryDto) {
    return this.stats.jobsHourly(auth, query.window, query.job_id);
  }
}
