import type { FastifyInstance, RouteOptions } from 'fastify';

/** A route as Fastify registered it: the one list every request is matched against. */
export interface RegisteredRoute {
  method: string;
  /** Fastify's template, e.g. `/api/v1/jobs/:id`. */
  url: string;
  /** Route `config` (plain Fastify routes put their OpenAPI description in `config.openapi`). */
  config: Record<string, unknown>;
}

const ROUTES = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * Records every route registered on `fastify` from now on (Nest's controllers and plain Fastify
 * routes alike), so the OpenAPI document lists exactly what the server answers. Call it before
 * anything registers routes (createFastifyAdapter does).
 */
export function trackRoutes(fastify: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  ROUTES.set(fastify, routes);
  fastify.addHook('onRoute', (options: RouteOptions) => {
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    for (const method of methods) {
      routes.push({ method, url: options.url, config: (options.config as Record<string, unknown>) ?? {} });
    }
  });
}

/** The routes recorded by `trackRoutes` (HEAD routes Fastify adds for every GET included). */
export function registeredRoutes(fastify: FastifyInstance): readonly RegisteredRoute[] {
  const routes = ROUTES.get(fastify);
  if (!routes) {
    throw new Error('trackRoutes() was not called on this Fastify instance');
  }
  return routes;
}
