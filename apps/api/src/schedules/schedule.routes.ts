import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import { RateLimitsRepository } from '@svc/persistence';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG } from '../config/config.module';
import { createRateLimitStore } from '../common/rate-limiter';
import { scheduleRouteOptions } from './schedule-endpoint.hooks';
import { parsePreviewBody, parseValidateBody } from './schedule-request.schema';
import { PREVIEW_RESPONSE_SCHEMA, VALIDATE_RESPONSE_SCHEMA } from './schedule-response.schema';
import { PREVIEW_ROUTE_DOC, VALIDATE_ROUTE_DOC } from './schedule-routes.openapi';
import { SchedulesService } from './schedules.service';

/**
 * `POST /api/v1/schedules/validate` and `/preview`, registered as plain Fastify routes rather than
 * a Nest controller: they are public, hot and stateless, and Nest's per-request pipeline
 * (guards, class-transformer, class-validator) costs about half of a bare route's throughput
 * (docs/benchmarks.md). Bodies are checked by compiled JSON schemas (schedule-request.schema.ts);
 * errors still go through the API's single error handler, so the envelope is the same.
 */
@Injectable()
export class ScheduleRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly schedules: SchedulesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rateLimits: RateLimitsRepository,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || typeof fastify.addHook !== 'function') {
      return; // no HTTP server (application context)
    }
    const perMinute = this.config.limits.schedule_rate_limit_per_minute;
    const options = scheduleRouteOptions({
      limiter: createRateLimitStore(this.config, perMinute, {
        namespace: 'schedules',
        windows: this.rateLimits,
        onError: (err) => new Logger('RateLimit').warn(`schedule rate limit not counted: ${(err as Error).message}`),
      }),
      trustProxy: this.config.http.trust_proxy,
    });
    const validateOptions = {
      ...options,
      schema: { response: { 200: VALIDATE_RESPONSE_SCHEMA } },
      config: { openapi: VALIDATE_ROUTE_DOC },
    };
    const previewOptions = {
      ...options,
      schema: { response: { 200: PREVIEW_RESPONSE_SCHEMA } },
      config: { openapi: PREVIEW_ROUTE_DOC },
    };
    fastify.post('/api/v1/schedules/validate', validateOptions, async (request) =>
      this.schedules.validate(parseValidateBody(request.body)),
    );
    fastify.post('/api/v1/schedules/preview', previewOptions, async (request) =>
      this.schedules.preview(parsePreviewBody(request.body)),
    );
  }
}
