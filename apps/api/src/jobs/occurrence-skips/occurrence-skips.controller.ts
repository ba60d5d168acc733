import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../../auth/auth.decorators';
import { JobIdPipe } from '../../common/id-param.pipe';
import { ApiOperation, ServerChecks } from '../../common/openapi/openapi.decorators';
import { SkipOccurrenceDto } from './occurrence-skip.dto';
import { OccurrenceInstantPipe } from './occurrence-instant.pipe';
import { OCCURRENCE_SKIP_SCHEMA } from './occurrence-skips.schema';
import { OccurrenceSkipsService } from './occurrence-skips.service';

const AT = new OccurrenceInstantPipe();

/** Skip one upcoming occurrence of a job, or undo the skip. */
@Controller('api/v1/jobs/:id/occurrences/:at/skip')
export class OccurrenceSkipsController {
  constructor(private readonly skips: OccurrenceSkipsService) {}

  @ServerChecks({ at: "an upcoming occurrence of the job's schedule" })
  @Post()
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation(
    'Skip one upcoming occurrence of a job, with a note',
    { 200: OCCURRENCE_SKIP_SCHEMA },
    '`at` must be an upcoming occurrence of the job’s schedule (else `400` naming `at`). The job is not ' +
      'changed otherwise (same `version`); when the instant comes its run is recorded `skipped` with ' +
      '`skip_reason: occurrence_skipped` and the note in `skip_note`, and nothing is delivered. Skipping an ' +
      'occurrence again replaces its note. At most 100 upcoming skips per job.',
  )
  skip(
    @Auth() auth: AuthContext,
    @Param('id', JobIdPipe) id: string,
    @Param('at', AT) at: Date,
    @Body() body: SkipOccurrenceDto,
  ) {
    return this.skips.skip(auth, id, at, body?.note ?? '');
  }

  @ServerChecks({ at: "an upcoming occurrence of the job's schedule" })
  @Delete()
  @HttpCode(204)
  @Scopes('jobs:write')
  @ApiOperation(
    'Undo the skip of an occurrence: it fires as scheduled',
    { 204: null },
    '`404` when the occurrence is not skipped. An occurrence whose run was already recorded skipped stays so.',
  )
  async unskip(
    @Auth() auth: AuthContext,
    @Param('id', JobIdPipe) id: string,
    @Param('at', AT) at: Date,
  ): Promise<void> {
    await this.skips.unskip(auth, id, at);
  }
}
