import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { BackfillIdPipe, JobIdPipe } from '../common/id-param.pipe';
import { withDryRunStatus } from '../common/dry-run-status';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { BACKFILL_ACCEPTED_SCHEMA, BACKFILL_SCHEMA } from './backfill-response.schema';
import { BackfillsService } from './backfills.service';
import { BackfillDto } from './dto/backfill.dto';
import { GetRoute } from '../auth/route.decorators';

/** Backfills of a job's past occurrences, each one tracked, cancelable backfill. */
@Controller('api/v1')
export class BackfillsController {
  constructor(private readonly backfills: BackfillsService) {}

  @Post('jobs/:id/backfill')
  @HttpCode(202)
  @Scopes('jobs:write')
  @ApiOperation(
    'Run a past range of a job’s occurrences again, with their nominal scheduled_at',
    { 200: BACKFILL_ACCEPTED_SCHEMA, 202: BACKFILL_ACCEPTED_SCHEMA },
    'The occurrences of `[from, to)` (at or before now) as the job’s schedule computes them in its time zone ' +
      '(EXDATE, excluded calendars and skipped occurrences left out). `dry_run`: `200` with the count, the first ' +
      'and the last; nothing is written. Otherwise `202` with the backfill’s id (`GET /backfills/{id}`): each ' +
      'occurrence gets one run (`trigger: backfill`, `backfill_id`), one at a time after the job’s own runs ' +
      '(`sequential`) or `max_runs` at once (`parallel`); one that already has a succeeded run is skipped ' +
      '(`skip_succeeded`, default true), one whose run is in flight is not run twice. `from` not before `to`, more ' +
      'than `limits.backfill_max_occurrences` occurrences, bad `overrides`: `400` naming the field, nothing written.',
  )
  async create(
    @Auth() auth: AuthContext,
    @Param('id', JobIdPipe) id: string,
    @Body() body: BackfillDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return withDryRunStatus(reply, await this.backfills.create(auth, id, body));
  }

  @GetRoute('backfills/:id', 'jobs:read', 'A backfill: its progress by occurrence and run', BACKFILL_SCHEMA)
  get(@Auth() auth: AuthContext, @Param('id', BackfillIdPipe) id: string) {
    return this.backfills.get(auth, id);
  }

  @Post('backfills/:id/cancel')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation(
    'Cancel a running backfill',
    { 200: BACKFILL_SCHEMA },
    'No occurrence starts after it (those not started count as `canceled`); runs in flight end on their own. ' +
      '`409 conflict` once the backfill has ended.',
  )
  cancel(@Auth() auth: AuthContext, @Param('id', BackfillIdPipe) id: string) {
    return this.backfills.cancel(auth, id);
  }
}
