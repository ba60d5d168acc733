import { Body, Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { JobIdPipe, RunIdPipe } from '../common/id-param.pipe';
import { ListJobRunsQueryDto, ListRunsQueryDto } from './dto/list-runs-query.dto';
import { ManualRunDto } from '../jobs/dto/manual-run.dto';
import { RunCancelService, RunRetryService } from './run-retry.service';
import { RunsService } from './runs.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { RUN_PAGE_SCHEMA, RUN_SCHEMA } from './run-response.schema';
import { GetRoute } from '../auth/route.decorators';

@Controller('api/v1')
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    private readonly retries: RunRetryService,
    private readonly cancels: RunCancelService,
  ) {}

  @GetRoute('jobs/:id/runs', 'runs:read', 'Runs of a job, newest first', RUN_PAGE_SCHEMA)
  listForJob(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string, @Query() query: ListJobRunsQueryDto) {
    return this.runs.listForJob(auth, id, query);
  }

  @GetRoute('runs', 'runs:read', 'Runs of the workspace, newest first', RUN_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListRunsQueryDto) {
    return this.runs.list(auth, query);
  }

  @GetRoute('runs/:id', 'runs:read', 'A run with its attempts', RUN_SCHEMA)
  get(@Auth() auth: AuthContext, @Param('id', RunIdPipe) id: string) {
    return this.runs.get(auth, id);
  }

  /** `202` with the occurrence's manual retry (decisions.md → Manual retry). */
  @Post('runs/:id/retry')
  @HttpCode(202)
  @Scopes('jobs:write')
  @ApiOperation(
    'Retry a failed run once (coalesced per occurrence)',
    { 202: RUN_SCHEMA },
    'The body is optional; `overrides` change the job’s sink for the retry only (docs/api.md → Per-run overrides). A retry that exists already is answered as it was opened.',
  )
  retry(@Auth() auth: AuthContext, @Param('id', RunIdPipe) id: string, @Body() body: ManualRunDto) {
    return this.retries.retry(auth, id, body.overrides);
  }

  /** The run, now `cancelled`; `409` when it has ended already (docs/api.md → Cancel a run). */
  @Post('runs/:id/cancel')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation(
    'Cancel a running or deferred run',
    { 200: RUN_SCHEMA },
    'Cancels its workflow (the attempt in flight is abandoned, a retry waiting in backoff never happens) and ends the run `cancelled`, audited as `run.cancel`. `409 conflict` when the run has ended already.',
  )
  cancel(@Auth() auth: AuthContext, @Param('id', RunIdPipe) id: string) {
    return this.cancels.cancel(auth, id);
  }
}
