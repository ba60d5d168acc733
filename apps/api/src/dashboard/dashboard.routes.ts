import { Logger } from '@nestjs/common';
import { NotFoundError, UnavailableError } from '@svc/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DashboardAssets } from './dashboard-assets';

/** Paths the single-page dashboard answers with its index.html (its own router takes it from there). */
export const DASHBOARD_PAGES = ['/', '/login', '/jobs', '/jobs/*', '/runs/*', '/settings', '/settings/*'];

/**
 * The page may load only what the API process itself serves (no CDN, no inline script), may not
 * be framed, and sends nothing but same-origin requests.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const html = (summary: string) => ({
  operationId: summary === 'page' ? 'dashboard.page' : 'dashboard.asset',
  tag: 'dashboard',
  summary:
    summary === 'page'
      ? 'The dashboard (HTML): the same page for every dashboard path; sign in with a session'
      : 'A static asset of the dashboard (content-hashed, cached for a year)',
  public: true,
  responses: {
    200: {
      description: summary === 'page' ? 'The dashboard page' : 'The file',
      schema: { type: 'string' },
      // Assets are scripts, styles, fonts and images, each with its own type.
      contentType: summary === 'page' ? 'text/html' : '*/*',
    },
  },
});

/** Registers the dashboard's routes on the API's own Fastify server (the spec: the same API serves it). */
export function registerDashboardRoutes(fastify: FastifyInstance, assets: DashboardAssets): void {
  if (!assets.index) {
    new Logger('Dashboard').warn(`no dashboard build in ${assets.dir}; run npm run build`);
  }
  const page = async (_request: unknown, reply: FastifyReply) => {
    void reply.header('Content-Security-Policy', CSP);
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Referrer-Policy', 'same-origin');
    void reply.header('Cache-Control', 'no-cache');
    if (!assets.index) {
      // The error envelope, like every other error of this server (and as the OpenAPI document says).
      throw new UnavailableError('The dashboard is not built: run npm run build.');
    }
    void reply.type('text/html; charset=utf-8');
    return assets.index;
  };
  for (const url of DASHBOARD_PAGES) {
    fastify.get(url, { config: { openapi: html('page') } }, page);
  }
  fastify.get<{ Params: { name: string } }>(
    '/assets/:name',
    { config: { openapi: html('asset') } },
    async (request, reply) => {
      const asset = assets.asset(request.params.name);
      if (!asset) {
        throw new NotFoundError('Asset');
      }
      void reply.header('X-Content-Type-Options', 'nosniff');
      void reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      void reply.type(asset.type);
      return asset.body;
    },
  );
}
