import { Body, Controller, Headers, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { JobIdPipe } from '../common/id-param.pipe';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { ApplyJobsDto, CreateJobDto, ListJobsQueryDto, UpdateJobDto } from './dto/job-body.dto';
import { ManualRunDto } from './dto/manual-run.dto';
import { JobKeyPipe, parsePreconditions } from './job-key.pipe';
import { JobsApplyService } from './jobs-apply.service';
import { JobsByKeyService } from './jobs-by-key.service';
import { JobsService } from './jobs.service';
import { SinkTestService } from './sink-test.service';
import { ApiOperation, ServerChecks } from '../common/openapi/openapi.decorators';
import {
  APPLY_PLAN_SCHEMA,
  JOB_PAGE_SCHEMA,
  JOB_SCHEMA,
  SINK_TEST_RESULT_SCHEMA,
  TRIGGER_ACCEPTED_SCHEMA,
} from './job-response.schema';
import { DeleteRoute, GetRoute, PostRoute } from '../auth/route.decorators';

@Controller('api/v1/jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly sinkTests: SinkTestService,
    private readonly byKey: JobsByKeyService,
    private readonly applier: JobsApplyService,
  ) {}

  @Post()
  @Scopes('jobs:write')
  @ApiOperation('Create a job (a webhook job’s signing secret is shown this once)', { 201: JOB_SCHEMA })
  @Idempotent({ sealed: 'signing_secret' })
  create(@Auth() auth: AuthContext, @Body() body: CreateJobDto) {
    return this.jobs.create(auth, body);
  }

  @GetRoute('', 'jobs:read', 'List jobs, filtered by state, tag or text', JOB_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListJobsQueryDto) {
    return this.jobs.list(auth, query);
  }

  /** Create or replace the job with this key (a full declaration); `ETag: "<version>"`. */
  @Put('by-key/:key')
  @Scopes('jobs:write')
  @ApiOperation(
    'Create or replace the job with this key: 201 created, 200 replaced or unchanged',
    { 200: JOB_SCHEMA, 201: JOB_SCHEMA },
    'The body of `POST /jobs`, a full declaration: a field left out takes its default, not the stored value. ' +
      'An identical declaration writes nothing (same `version`, no audit entry, the workflow untouched); a change ' +
      'raises `version`. A PUT never resumes a paused job, never enables a disabled one, never rotates the signing ' +
      'secret (shown once, when the PUT creates a webhook job) and keeps `managed_by`. `If-Match: "<version>"`: ' +
      '`412 precondition_failed` unless the job is at that version; `If-None-Match: *`: create only (`412` when the ' +
      'key exists). The response carries `ETag: "<version>"`.',
  )
  async upsertJobByKey(
    @Auth() auth: AuthContext,
    @Param('key', JobKeyPipe) key: string,
    @Body() body: CreateJobDto,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('if-match') ifMatch?: string,
    @Headers('if-none-match') ifNoneMatch?: string,
  ) {
    const { created, job } = await this.byKey.upsert(auth, key, body, parsePreconditions(ifMatch, ifNoneMatch));
    void reply.status(created ? 201 : 200).header('ETag', `"${job.version}"`);
    return job;
  }

  @GetRoute('by-key/:key', 'jobs:read', 'The job with this key, as GET /jobs/{id} answers it', JOB_SCHEMA)
  async getJobByKey(
    @Auth() auth: AuthContext,
    @Param('key', JobKeyPipe) key: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const job = await this.byKey.get(auth, key);
    void reply.header('ETag', `"${job.version}"`);
    return job;
  }

  @DeleteRoute('by-key/:key', 'jobs:write', 'Delete the job with this key; its runs stay readable')
  async deleteJobByKey(@Auth() auth: AuthContext, @Param('key', JobKeyPipe) key: string): Promise<void> {
    await this.byKey.remove(auth, key);
  }

  /** A whole set of jobs declared at once, with the plan. */
  @Post('apply')
  @HttpCode(200)
  @Scopes('jobs:write')
  @ApiOperation(
    'Apply a set of jobs declared by key: create, update, leave, prune; answers the plan',
    { 200: APPLY_PLAN_SCHEMA },
    'Each job is the body of `POST /jobs` with its `key`, a full declaration. The whole set is validated first ' +
      '(`400 validation_failed`, `fields` such as `jobs[3].schedule.expr`; duplicate keys; `prune` without ' +
      '`managed_by`) and a key created by hand or owned by another `managed_by` is `409 conflict` unless ' +
      '`adopt: true`: then nothing is written. Applies in one workspace run one at a time across every API ' +
      'process. `dry_run` answers the plan and writes nothing. Jobs are written one transaction each (workflows ' +
      'started and signalled as POST and PATCH do), with one audit entry `jobs.apply` for the whole apply; `prune` ' +
      'deletes the jobs of `managed_by` the set no longer names. Paused and disabled jobs stay so (`kept`); ' +
      'signing secrets are never rotated nor shown.',
  )
  // Up to APPLY_MAX_JOBS jobs of a few hundred bytes each can exceed the 1 MiB every API request
  // has (spec → Limits): the document says so, the schema cannot.
  @ServerChecks({ body: 'the whole request at most 1 MiB of JSON (spec → Limits): `400` naming `body` beyond it' })
  applyJobs(@Auth() auth: AuthContext, @Body() body: ApplyJobsDto) {
    return this.applier.apply(auth, body);
  }

  @GetRoute(':id', 'jobs:read', 'A job with its next runs and 24-hour stats', JOB_SCHEMA)
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

  @DeleteRoute(':id', 'jobs:write', 'Delete a job; its runs stay readable')
  async remove(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string): Promise<void> {
    await this.jobs.remove(auth, id);
  }

  @PostRoute(':id/pause', 200, 'jobs:write', 'Pause an active job', JOB_SCHEMA)
  pause(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.pause(auth, id);
  }

  @PostRoute(':id/resume', 200, 'jobs:write', 'Resume a paused job', JOB_SCHEMA)
  resume(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.resume(auth, id);
  }

  @PostRoute(':id/enable', 200, 'jobs:write', 'Enable a disabled job', JOB_SCHEMA)
  enable(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.enable(auth, id);
  }

  @Post(':id/trigger')
  @HttpCode(202)
  @Scopes('jobs:write')
  @ApiOperation(
    'Run a job now (a manual run)',
    { 202: TRIGGER_ACCEPTED_SCHEMA },
    'The body is optional; `overrides` change the job’s sink for this run only (docs/api.md → Per-run overrides).',
  )
  // Without overrides (no body, `{}`, `overrides: null`) a trigger is the same request; anything
  // else in the body counts, so a reused key with a body the schema refuses is a 409, never a replay.
  @Idempotent({ fingerprint: ({ overrides, ...rest }) => (overrides ? { ...rest, overrides } : rest) })
  trigger(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string, @Body() body: ManualRunDto) {
    return this.jobs.trigger(auth, id, body.overrides);
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
  @PostRoute(
    ':id/test',
    200,
    'jobs:write',
    'Send one real request to the job’s sink; records nothing',
    SINK_TEST_RESULT_SCHEMA,
  )
  test(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.sinkTests.testJob(auth, id);
  }

  /** A new signing secret, shown in this response only; the old one signs too for 24 hours. */
  @PostRoute(
    ':id/rotate-signing-secret',
    200,
    'jobs:write',
    'A new signing secret (shown this once); the old one signs too for 24 hours',
    JOB_SCHEMA,
  )
  rotateSigningSecret(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.rotateSigningSecret(auth, id);
  }
}
