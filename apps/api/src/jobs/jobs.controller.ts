import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../common/auth/auth.decorators';
import { JobIdPipe } from '../common/id-param.pipe';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { CreateJobDto, ListJobsQueryDto, UpdateJobDto } from './dto/job-body.dto';
import { JobsService } from './jobs.service';
import { SinkTestService } from './sink-test.service';

@Controller('api/v1/jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly sinkTests: SinkTestService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post()
  @Scopes('jobs:write')
  create(@Auth() auth: AuthContext, @Body() body: CreateJobDto, @Headers('idempotency-key') key?: string) {
    return this.idempotency.execute(auth, 'POST /api/v1/jobs', key, body, () => this.jobs.create(auth, body));
  }

  @Get()
  @Scopes('jobs:read')
  list(@Auth() auth: AuthContext, @Query() query: ListJobsQueryDto) {
    return this.jobs.list(auth, query);
  }

  @Get(':id')
  @Scopes('jobs:read')
  get(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.get(auth, id);
  }

  @Patch(':id')
  @Scopes('jobs:write')
  update(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string, @Body() body: UpdateJobDto) {
    return this.jobs.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Scopes('jobs:write')
  async remove(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string): Promise<void> {
    await this.jobs.remove(auth, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @Scopes('jobs:write')
  pause(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.pause(auth, id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @Scopes('jobs:write')
  resume(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.resume(auth, id);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @Scopes('jobs:write')
  enable(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.enable(auth, id);
  }

  @Post(':id/trigger')
  @HttpCode(202)
  @Scopes('jobs:write')
  trigger(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string, @Headers('idempotency-key') key?: string) {
    return this.idempotency.execute(auth, `POST /api/v1/jobs/${id}/trigger`, key, {}, () =>
      this.jobs.trigger(auth, id),
    );
  }

  /** One real request to an unsaved job body's sink, validated like a create; records nothing. */
  @Post('test')
  @HttpCode(200)
  @Scopes('jobs:write')
  testConfig(@Auth() auth: AuthContext, @Body() body: CreateJobDto) {
    return this.sinkTests.testConfig(auth, body);
  }

  /** One real request to the job's sink, signed and sent like a delivery; records nothing. */
  @Post(':id/test')
  @HttpCode(200)
  @Scopes('jobs:write')
  test(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.sinkTests.testJob(auth, id);
  }

  /** A new signing secret, shown in this response only; the old one signs too for 24 hours. */
  @Post(':id/rotate-signing-secret')
  @HttpCode(200)
  @Scopes('jobs:write')
  rotateSigningSecret(@Auth() auth: AuthContext, @Param('id', JobIdPipe) id: string) {
    return this.jobs.rotateSigningSecret(auth, id);
  }
}
