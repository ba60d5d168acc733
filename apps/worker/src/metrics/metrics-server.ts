import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { isLoopbackHost, metricsAccess, type WorkerMetrics } from '@svc/common/metrics';
import { portInUseError } from '@svc/common/port-in-use';
import type { Registry } from 'prom-client';
import { createServer, type Server } from 'node:http';
import { WORKER_CONFIG, WORKER_LOG_CONTEXT, WORKER_METRICS } from '../worker.constants';

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
  const tokenless = isLoopbackHost(host);
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    // The same rule as the API's /metrics: the bearer token, else loopback peers of a
    // loopback-only listener (on a public address, a same-host proxy's peers look local too).
    const access = metricsAccess(token, request.headers.authorization, request.socket.remoteAddress, tokenless);
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

/**
 * The worker's `/metrics` listener (`metrics.worker_port`, none with 0): listens before the
 * workers start and closes after they have drained.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private server?: Server;

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    @Inject(WORKER_METRICS) private readonly metrics: WorkerMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metrics.worker_port;
    if (port <= 0) {
      return;
    }
    const { host } = this.config.http;
    this.server = await startMetricsServer(this.metrics.registry, host, port, this.config.metrics.token).catch(
      (err: unknown) => {
        throw portInUseError(err, {
          what: "The worker's metrics",
          host,
          port,
          env: 'METRICS_WORKER_PORT',
          key: 'metrics.worker_port',
        });
      },
    );
    this.logger.log(`metrics on http://${host}:${port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolveClose) => (this.server ? this.server.close(resolveClose) : resolveClose(null)));
  }
}
