import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { OperationIdPipe } from '../common/id-param.pipe';
import { withDryRunStatus } from '../common/dry-run-status';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { BulkJobsDto, RecoverRunsDto } from './dto/operations.dto';
import { BULK_JOBS_DRY_RUN_SCHEMA, OPERATION_SCHEMA, RECOVER_DRY_RUN_SCHEMA } from './operation-response.schema';
import { OperationsService } from './operations.service';
import { GetRoute } from '../auth/route.decorators';

/** Bulk actions on jobs and the recover of failed runs, each one tracked operation. */
@Controller('api/v1')
export class OperationsController {
  constructor(private readonly operations: OperationsService) {}

  @Post('jobs/bulk')
  @HttpCode(202)
  @Scopes('jobs:write')
  @ApiOperation(
    'Pause, resume, trigger, delete or enable the jobs a filter matches, with a note',
    { 200: BULK_JOBS_DRY_RUN_SCHEMA, 202: OPERATION_SCHEMA },
    '`dry_run`: `200` with the matched jobs; nothing changes. Otherwise `202` with the operation, which applies the ' +
      'action to each matched job as the single-job endpoint does (a job the action does not apply to is refused ' +
      'and listed in `errors`), with `note` and `operation_id` in each audit entry. A pause with `resume_at` is a ' +
      'maintenance window: its jobs show `paused_note` and `resume_at`, and are resumed at that time unless ' +
      'resumed by hand or paused again since. An empty filter needs `all: true`; a `state` the action never ' +
      'applies to, `resume_at` on another action or in the past: `400` naming the field, nothing changed.',
  )
  async bulkJobs(
    @Auth() auth: AuthContext,
    @Body() body: BulkJobsDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return withDryRunStatus(reply, await this.operations.bulkJobs(auth, body));
  }

  @Post('runs/recover')
  @HttpCode(202)
  @Scopes('jobs:write')
  @ApiOperation(
    'Retry every failed run a filter matches, as one operation',
    { 200: RECOVER_DRY_RUN_SCHEMA, 202: OPERATION_SCHEMA },
    'Manual-retry rules (one retry per occurrence, coalesced): a run whose occurrence was retried already is not ' +
      'matched. Oldest occurrence first, at most `max` (default 1000). `dry_run`: `200` with the matched runs. ' +
      'Otherwise `202` with the operation, which opens the retries a few at a time.',
  )
  async recover(
    @Auth() auth: AuthContext,
    @Body() body: RecoverRunsDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return withDryRunStatus(reply, await this.operations.recover(auth, body));
  }

  @GetRoute(
    'operations/:id',
    'jobs:read',
    'A bulk action or recover: its progress and the items it refused',
    OPERATION_SCHEMA,
  )
  get(@Auth() auth: AuthContext, @Param('id', OperationIdPipe) id: string) {
    return this.operations.get(auth, id);
  }

  @Post('operations/:id/cancel')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation(
    'Cancel a running operation, or the end of its maintenance window',
    { 200: OPERATION_SCHEMA },
    'No item is handled after the ones in flight; a maintenance window resumes nothing (its jobs stay paused). ' +
      '`409 conflict` once the operation has ended.',
  )
  cancel(@Auth() auth: AuthContext, @Param('id', OperationIdPipe) id: string) {
    return this.operations.cancel(auth, id);
  }
}
