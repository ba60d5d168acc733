import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { type AppConfig, temporalConnectOptions } from '@svc/common';
import { dataConverterOptions } from '@svc/common/temporal-data-converter';
import { AuditRepository, JobsRepository, RunsRepository, WorkspacesRepository } from '@svc/persistence';
import { BackgroundWork, FOLLOW_UP_RETRY, JobLifecycle, JobWorkflowGateway } from '@svc/orchestration';
import { tracingClientInterceptors } from '@svc/orchestration/tracing';
import { DataSource } from 'typeorm';
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
@Global()
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
    {
      provide: JobWorkflowGateway,
      inject: [TEMPORAL_CLIENT, APP_CONFIG],
      useFactory: (client: Client, config: AppConfig) => {
        const logger = new Logger(JobWorkflowGateway.name);
        return new JobWorkflowGateway(client, config.temporal.task_queue, (message) => logger.warn(message));
      },
    },
    {
      provide: JobLifecycle,
      inject: [
        DataSource,
        JobsRepository,
        RunsRepository,
        AuditRepository,
        WorkspacesRepository,
        JobWorkflowGateway,
        APP_CONFIG,
        BackgroundWork,
      ],
      useFactory: (
        dataSource: DataSource,
        jobs: JobsRepository,
        runs: RunsRepository,
        audit: AuditRepository,
        workspaces: WorkspacesRepository,
        gateway: JobWorkflowGateway,
        config: AppConfig,
        followUps: BackgroundWork,
      ) => {
        const logger = new Logger('JobLifecycle');
        return new JobLifecycle({
          dataSource,
          jobs,
          runs,
          audit,
          workspaces,
          gateway,
          config,
          warn: (message) => logger.warn(message),
          followUps,
        });
      },
    },
    // The job lifecycle's follow-ups to Temporal, drained at shutdown (TemporalConnectionCloser):
    // retried with the defaults (FOLLOW_UP_RETRY), reporting through Nest's logger.
    {
      provide: BackgroundWork,
      useFactory: () => new BackgroundWork(FOLLOW_UP_RETRY, new Logger(BackgroundWork.name)),
    },
    TemporalConnectionCloser,
  ],
  exports: [
    TEMPORAL_CONNECTION,
    TEMPORAL_PROBE_CONNECTION,
    TEMPORAL_CLIENT,
    JobWorkflowGateway,
    JobLifecycle,
    BackgroundWork,
  ],
})
export class TemporalModule {}
