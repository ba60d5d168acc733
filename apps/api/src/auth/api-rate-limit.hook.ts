import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit, type Type } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import { hashApiKey } from '@svc/common/api-keys';
import { RateLimitsRepository } from '@svc/persistence';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { applyRateLimit, createRateLimitStore, rateLimitKey } from '../common/rate-limiter';
import { APP_CONFIG } from '../config/config.module';
import { presentedCredential } from './credentials';
import { routesOfController } from './route-table';
import { hashSessionToken } from './session-cookie';

const API_PREFIX = '/api/v1/';

type RateLimitHook = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;

/** The API rate limit of a server, for what its router refuses before hooks run (app.ts). */
export const FRAMEWORK_RATE_LIMITS = new WeakMap<object, RateLimitHook>();

/**
 * `limits.api_rate_limit_per_minute` (spec → Limits) on the authenticated API, as a Fastify
 * `onRequest` hook rather than in the guard, so that every response of an authenticated route
 * carries `RateLimit-Limit`/`-Remaining`/`-Reset`: also the ones the guard never sees (malformed
 * JSON, oversized bodies, unknown routes under `/api/v1`, a database that is down) and 401s.
 *
 * - Which routes: every Nest route that is not `@Public()`, plus unmatched paths under
 *   `/api/v1/`. Public routes (health, features) carry no headers; the schedule endpoints have
 *   their own per-IP limiter (schedule-endpoint.hooks.ts).
 * - Bucket: the SHA-256 of the presented bearer token (the stored key hash, so one bucket per
 *   key without a database read; refused requests never reach the key lookup), else that of the
 *   session cookie's token (one bucket per session), else the peer address.
 */
@Injectable()
export class ApiRateLimitHook implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly modules: ModulesContainer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rateLimits: RateLimitsRepository,
  ) {}

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    const limiter = createRateLimitStore(this.config, this.config.limits.api_rate_limit_per_minute, {
      namespace: 'api',
      windows: this.rateLimits,
      onError: (err) => this.logger.warn(`API rate limit not counted: ${(err as Error).message}`),
    });
    if (!fastify || typeof fastify.addHook !== 'function' || !limiter) {
      return;
    }
    if (this.config.limits.store === 'postgres') {
      // Closed windows of every replica's buckets; any replica may sweep them.
      this.sweeper = setInterval(() => void this.rateLimits.deleteExpired().catch(() => undefined), 60_000).unref();
    }
    const authenticated = this.authenticatedRoutes();
    const trustProxy = this.config.http.trust_proxy;

    const hook = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      const template = request.routeOptions.url;
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const limited =
        template === undefined ? request.url.startsWith(API_PREFIX) : authenticated.has(`${method} ${template}`);
      if (!limited) {
        return done();
      }
      const credential = presentedCredential(request.headers);
      const bucket =
        credential?.kind === 'key'
          ? `key:${hashApiKey(credential.token)}`
          : credential
            ? `session:${hashSessionToken(credential.token)}`
            : `ip:${rateLimitKey(request, trustProxy)}`;
      applyRateLimit(limiter, bucket, reply, done);
    };
    fastify.addHook('onRequest', hook);
    // Requests the router refuses before any hook (app.ts → frameworkErrors) are counted too.
    FRAMEWORK_RATE_LIMITS.set(fastify, hook);
  }

  /** `METHOD /path/:param` of every non-public Nest route (what ApiKeyGuard protects). */
  private authenticatedRoutes(): Set<string> {
    const routes = new Set<string>();
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) {
        for (const route of routesOfController(wrapper.metatype as Type)) {
          if (!route.public) {
            routes.add(`${route.method} ${route.path}`);
          }
        }
      }
    }
    return routes;
  }
}
