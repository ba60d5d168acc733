import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { type AppConfig, temporalConnectOptions } from '@svc/common';
import { dataConverterOptions } from '@svc/common/temporal-data-converter';
import { BackgroundWork } from '@svc/orchestration';
import { OrchestrationModule } from '@svc/orchestration/orchestration.module';
import { tracingClientInterceptors } from '@svc/orchestration/tracing';
import { Client, Connection } from '@temporalio/client';
import { APP_CONFIG } from '../config/config.module';

export const TEMPORAL_CONNECTION = Symbol('TEMPORAL_CONNECTION');
export const TEMPORAL_CLIENT = Symbol('TEMPORAL_CLIENT');
/** A second connection for /readyz probes: no retry interceptor, so a probe never outlives its deadline. */
export const TEMPORAL_PROBE_CONNECTION = Symbol('TEMPORAL_PROBE_CONNECTION');

@Injectable()
class TemporalConnectionCloser implements OnApplicationShutdown {
  constructor(
    @Inject(TEMPORAL_CONNECTION) private readonly connection: Connection,
    @Inject(TEMPORAL_PROBE_CONNECTION) private readonly probe: Connection,
    private readonly background: BackgroundWork,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.background.drain();
    await this.connection.close().catch(() => undefined);
    await this.probe.close().catch(() => undefined);
  }
}

/**
 * Temporal client for the API. The connection is lazy so the API starts while Temporal is down
 * (`/readyz` says so); the API only starts, signals and cancels workflows.
 */
@Module({
  providers: [
    {
      provide: TEMPORAL_CONNECTION,
      inject: [APP_CONFIG],
      // Address, TLS, API key and metadata: one rule for every connection (docs/operations.md →
      // Connecting to Temporal).
      useFactory: (config: AppConfig) => Connection.lazy(temporalConnectOptions(config.temporal)),
    },
    {
      provide: TEMPORAL_PROBE_CONNECTION,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        Connection.lazy({ ...temporalConnectOptions(config.temporal), interceptors: [] }),
    },
    {
      provide: TEMPORAL_CLIENT,
      inject: [TEMPORAL_CONNECTION, APP_CONFIG],
      // Tracing on: starts and signals carry the request's trace to the workflow (headers).
      useFactory: (connection: Connection, config: AppConfig) =>
        new Client({
          connection,
          namespace: config.temporal.namespace,
          interceptors: tracingClientInterceptors(config.tracing.enabled),
          // Payload encryption (docs/operations.md): nothing with the codec off.
          ...dataConverterOptions(config),
        }),
    },
  ],
  exports: [TEMPORAL_CONNECTION, TEMPORAL_PROBE_CONNECTION, TEMPORAL_CLIENT],
})
class TemporalClientModule {}

/**
 * The API's Temporal side, global: the client (`TemporalClientModule`) and, over it, the job's
 * orchestration objects the worker is given the same way (`OrchestrationModule`: `JobLifecycle`,
 * `BackgroundWork`, `JobWorkflowGateway`). The follow-ups are drained at shutdown, before the
 * connections close (`TemporalConnectionCloser`).
 */
@Global()
@Module({
  imports: [
    TemporalClientModule,
    OrchestrationModule.forRoot({ imports: [TemporalClientModule], config: APP_CONFIG, client: TEMPORAL_CLIENT }),
  ],
  providers: [TemporalConnectionCloser],
  exports: [TemporalClientModule, OrchestrationModule],
})
export class TemporalModule {}
