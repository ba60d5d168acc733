import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyRouteDoc } from '../common/openapi/openapi.decorators';
import { APP_CONFIG } from '../config/config.module';

export const CODEC_PATHS = ['/codec/encode', '/codec/decode'];
/** What the Temporal Web UI sends: its bearer token (when configured), JSON, and the namespace. */
const ALLOWED_HEADERS = 'authorization, content-type, x-namespace, x-request-id';
const PREFLIGHT_MAX_AGE_S = 600;

/** The preflight routes in the OpenAPI document (plain Fastify routes describe themselves). */
function preflightDoc(url: string): FastifyRouteDoc {
  return {
    operationId: `codec.preflight${url.endsWith('encode') ? 'Encode' : 'Decode'}`,
    tag: 'codec',
    summary: `CORS preflight of POST ${url}`,
    description:
      'Grants `Access-Control-Allow-Origin` (with credentials) only to an `Origin` in `temporal.codec.cors_origins`; ' +
      'any other origin gets `204` without `Access-Control-Allow-*` headers.',
    public: true,
    responses: { 204: null },
  };
}

/**
 * CORS for the codec server (docs/operations.md → Payload encryption and the codec server): the
 * Temporal Web UI calls `/codec/*` from its own origin, with credentials (the dashboard session
 * cookie) or its bearer token. Only the origins of `temporal.codec.cors_origins` (default: the
 * origin of `temporal.ui_url`) get a grant, on the preflight (`OPTIONS`, answered here) and on
 * every answer of the codec routes, errors included; any other origin gets no
 * `Access-Control-Allow-*` header, so the browser keeps the answer from it. Other routes are untouched.
 */
@Injectable()
export class CodecCorsHook implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || typeof fastify.addHook !== 'function') {
      return;
    }
    const allowed = new Set(this.config.temporal.codec?.cors_origins ?? []);
    const grant = (request: FastifyRequest, reply: FastifyReply): boolean => {
      void reply.header('Vary', 'Origin');
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || !allowed.has(origin)) {
        return false;
      }
      void reply.header('Access-Control-Allow-Origin', origin);
      void reply.header('Access-Control-Allow-Credentials', 'true');
      return true;
    };
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (request.method === 'POST' && CODEC_PATHS.includes(request.routeOptions.url ?? '')) {
        grant(request, reply);
      }
      done();
    });
    for (const url of CODEC_PATHS) {
      fastify.options(url, { config: { openapi: preflightDoc(url) } }, (request, reply) => {
        if (grant(request, reply)) {
          void reply.header('Access-Control-Allow-Methods', 'POST, OPTIONS');
          void reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS);
          void reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
        }
        void reply.status(204).send();
      });
    }
  }
}
