import { metricsAccess } from '@svc/common/metrics';
import type { Registry } from 'prom-client';
import { createServer, type Server } from 'node:http';

/**
 * The worker has no HTTP API; this listener serves its Prometheus registry at `GET /metrics`
 * (`metrics.worker_port`) to holders of `metrics.token` (or, without one, to loopback peers) and
 * answers 404 to anything else.
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
  token: string | null = null,
): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    // The same rule as the API's /metrics: the bearer token, else loopback peers only.
    const access = metricsAccess(token, request.headers.authorization, request.socket.remoteAddress);
    if (access !== 'allowed') {
      response.writeHead(access === 'unauthorized' ? 401 : 403).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveListen());
  });
  return server;
}
