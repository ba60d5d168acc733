import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext, Credential, Scopes } from '../auth/auth.decorators';
import { sealedFieldReplay } from '../common/idempotency/caller-seal';
import { JobIdPipe } from '../common/id-param.pipe';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { CreateJobDto, ListJobsQueryDto, UpdateJobDto } from './dto/job-body.dto';
import type { JobResponse } from './jobs.mapper';
import { JobsService } from './jobs.service';
import { SinkTestService } from './sink-test.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { JOB_PAGE_SCHEMA, JOB_SCHEMA, SINK_TEST_RESULT_SCHEMA, TRIGGER_ACCEPTED_SCHEMA } from './job-response.schema';

@Controller('api/v1/jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly sinkTests: SinkTestService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post()
  @Scopes('jobs:write')
  @ApiOperation('Create a job (webhook jobs: `signing_secret` shown this once)', { 201: JOB_SCHEMA })
  create(
    @Auth() auth: AuthContext,
    @Body() body: CreateJobDto,
    @Credential() credential: string,
    @Headers('idempotency-key') key?: string,
  ) {
    // The replay record keeps the one-time signing secret sealed to this caller (caller-seal.ts).
    return this.idempotency.execute(
      auth,
      'POST /api/v1/jobs',
      key,
      body,
      () => this.jobs.create(auth, body),
      key === undefined
        ? undefined
        : sealedFieldReplay<JobResponse>('signing_secret', credential, `${auth.workspaceId}\n${key}`),
    );
  }

  @Get()
  @Scopes('jobs:read')
  @ApiOperation('List jobs, filtered by state, tag or text', { 200: JOB_PAGE_SCHEMA })
  list(@Auth() auth: AuthContext, @Query() query: ListJobsQueryDto) {
    return this.jobs.list(auth, query);
  }

  @Get(':id')
  @Scopes('jobs:read')
  @ApiOperation('A job with its next runs and 24-hour stats', { 200: JOB_SCHEMA })
  get(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.get(auth, id);
  }

  @Patch(':id')
  @Scopes('jobs:write')
  @ApiOperation(
    'Change any subset of a job’s settings; what is omitted is kept',
    { 200: JOB_SCHEMA },
    'Nested objects (`schedule`, `retry`, `sink.config`) merge field by field with the stored job and `null` resets ' +
      'a field to its default (see the request schema). A change of `sink.kind` to `webhook` answers the new ' +
      '`signing_secret` this once; to `command`, the job’s signing secrets are dropped.',
  )
  update(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string, @Body() body: UpdateJobDto) {
    return this.jobs.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Scopes('jobs:write')
  @ApiOperation('Delete a job; its runs stay readable', { 204: null })
  async remove(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string): Promise<void> {
    await this.jobs.remove(auth, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation('Pause an active job', { 200: JOB_SCHEMA })
  pause(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.pause(auth, id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation('Resume a paused job', { 200: JOB_SCHEMA })
  resume(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.resume(auth, id);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation('Enable a disabled job', { 200: JOB_SCHEMA })
  enable(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.enable(auth, id);
  }

  @Post(':id/trigger')
  @HttpCode(202)
  @Scopes('jobs:write')
  @ApiOperation('Run a job now (a manual run)', { 202: TRIGGER_ACCEPTED_SCHEMA })
  trigger(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string, @Headers('idempotency-key') key?: string) {
    return this.idempotency.execute(auth, `POST /api/v1/jobs/${id}/trigger`, key, {}, () =>
      this.jobs.trigger(auth, id),
    );
  }

  /** One real request to an unsaved job body's sink, validated like a create; records nothing. */
  @Post('test')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation('Send one real request to an unsaved job body’s sink; records nothing', {
    200: SINK_TEST_RESULT_SCHEMA,
  })
  testConfig(@Auth() auth: AuthContext, @Body() body: CreateJobDto) {
    return this.sinkTests.testConfig(auth, body);
  }

  /** One real request to the job's sink, signed and sent like a delivery; records nothing. */
  @Post(':id/test')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation('Send one real request to the job’s sink; records nothing', { 200: SINK_TEST_RESULT_SCHEMA })
  test(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.sinkTests.testJob(auth, id);
  }

  /** A new signing secret, shown in this response only; the old one signs too for 24 hours. */
  @Post(':id/rotate-signing-secret')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation('A new signing secret (shown this once); the old one signs too for 24 hours', { 200: JOB_SCHEMA })
  rotateSigningSecret(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.rotateSigningSecret(auth, id);
  }
}
