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

/** A route template as a matcher: `:param` is one path segment, a trailing `*` the rest of the path. */
function templateMatcher(url: string): RegExp {
  const pattern = url
    .split(/(:[A-Za-z0-9_]+|\*$)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

interface Template {
  url: string;
  matcher: RegExp;
  /** Literal path segments: the most specific templates are the path's resource. */
  literals: number;
  methods: Set<string>;
}

const TEMPLATES = new WeakMap<readonly RegisteredRoute[], { count: number; templates: Template[] }>();

/**
 * The resource `rawUrl` names (its query string ignored): the route templates that match it most
 * specifically (literal segments over parameters, as the router prefers them: `/alert-channels/
 * verify` is not `/alert-channels/{id}`) and the methods they serve, `HEAD` beside every `GET` as
 * Fastify adds it. No templates for a path no route has (an unknown path: 404).
 */
export function resourceOf(fastify: FastifyInstance, rawUrl: string): { templates: string[]; methods: string[] } {
  const routes = registeredRoutes(fastify);
  let cached = TEMPLATES.get(routes);
  if (!cached || cached.count !== routes.length) {
    const byUrl = new Map<string, Set<string>>();
    for (const route of routes) {
      byUrl.set(route.url, (byUrl.get(route.url) ?? new Set()).add(route.method));
    }
    const templates = [...byUrl].map(([url, methods]) => ({
      url,
      matcher: templateMatcher(url),
      literals: url.split('/').filter((segment) => segment && !segment.startsWith(':') && segment !== '*').length,
      methods,
    }));
    cached = { count: routes.length, templates };
    TEMPLATES.set(routes, cached);
  }
  const path = rawUrl.split('?')[0];
  const matching = cached.templates.filter((t) => t.matcher.test(path));
  const best = Math.max(...matching.map((t) => t.literals));
  const resource = matching.filter((t) => t.literals === best);
  const methods = new Set<string>();
  resource.forEach((t) => t.methods.forEach((m) => methods.add(m)));
  return { templates: resource.map((t) => t.url), methods: [...methods].sort() };
}
