import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SinkRegistry } from '@svc/delivery';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { APP_CONFIG } from '../config/config.module';
import { HealthService } from './health.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { FEATURES_SCHEMA, HEALTH_SCHEMA, READINESS_SCHEMA, VERSION_SCHEMA } from './health-response.schema';

@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sinkKinds: SinkRegistry,
  ) {}

  /** Liveness: 200 while the process runs. */
  @Get('healthz')
  @ApiOperation('Liveness: 200 while the process runs', { 200: HEALTH_SCHEMA })
  healthz() {
    return { status: 'ok' };
  }

  /** Readiness: 200 when PostgreSQL is writable and Temporal and a worker answer; else 503. */
  @Get('readyz')
  @ApiOperation('Readiness: 200 when PostgreSQL, Temporal and a worker answer; else 503', {
    200: { description: 'Ready', schema: READINESS_SCHEMA },
    503: { description: 'Not ready; the breakdown says why', schema: READINESS_SCHEMA },
  })
  async readyz(@Res({ passthrough: true }) reply: FastifyReply) {
    const { ready, ...breakdown } = await this.health.readiness();
    void reply.status(ready ? 200 : 503);
    return { status: ready ? 'ready' : 'unavailable', ...breakdown };
  }

  @Get('version')
  @ApiOperation('Version, commit and build date of the server', { 200: VERSION_SCHEMA })
  version() {
    const { version, commit, build_date } = this.config;
    return { version, commit, build_date, edition: 'oss' };
  }

  /** Public server features; never secrets or client ids. Clients may cache it for a minute. */
  @Get('api/v1/features')
  @ApiOperation('Public server features; cacheable for a minute', { 200: FEATURES_SCHEMA })
  features(@Res({ passthrough: true }) reply: FastifyReply) {
    void reply.header('Cache-Control', 'public, max-age=60');
    return {
      public_url: this.config.public_url,
      auth: { providers: this.config.auth.providers, dev_login: this.config.auth.dev_login },
      sinks: Object.fromEntries(this.sinkKinds.all().map((k) => [k.kind, k.disabledReason(this.config) === null])),
      sink_kinds: this.sinkKinds.all().map((k) => ({
        kind: k.kind,
        label: k.label,
        description: k.description,
        enabled: k.disabledReason(this.config) === null,
        fields: k.formFields,
        config_schema: k.configSchema,
      })),
    };
  }
}
