import { Logger, Module, type Provider } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { createWorkerMetrics, recordRunClosed, type WorkerMetrics } from '@svc/common/metrics';
import { SecretsCipher } from '@svc/common/secrets-crypto';
import { dataConverterOptions } from '@svc/common/temporal-data-converter';
import { AlertSender, networkRulesOf, SinkRegistry, verificationKeyFromConfig } from '@svc/delivery';
import {
  AlertWorkflowGateway,
  DestinationGate,
  JobLifecycle,
  JobWorkflowGateway,
  SinkSender,
  sinkServices,
} from '@svc/orchestration';
import { OrchestrationModule } from '@svc/orchestration/orchestration.module';
import { tracingClientInterceptors } from '@svc/orchestration/tracing';
import {
  AlertChannelsRepository,
  AlertEventsRepository,
  BackfillsRepository,
  CalendarsRepository,
  DestinationsRepository,
  JobsRepository,
  OccurrenceBurstsRepository,
  OperationsRepository,
  OVER_DATA_SOURCE,
  overDataSourceProviders,
  RunsRepository,
  SecretsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import { alertsTaskQueue, parkedTaskQueue } from '@svc/workflow-contract/definitions';
import { Client, type ConnectionLike } from '@temporalio/client';
import { AlertDispatcher } from '../alerts/alert-dispatcher';
import { AlertSweeper } from '../alerts/alert-sweeper';
import { TemporalConnections } from '../temporal/connect';
import { ParkedQueue } from '../temporal/parked-queue';
import {
  ALERT_ACTIVITIES,
  DATA_CONVERTER,
  type DataConverterOptions,
  EAGER_JOB_GATEWAY,
  JOB_ACTIVITIES,
  WORKER_CLIENT,
  WORKER_CONFIG,
  WORKER_LOG_CONTEXT,
  WORKER_METRICS,
} from '../worker.constants';
import { createAlertActivities } from './alert.activities';
import { createActivities } from './index';
import { parkAboveJobs } from './park-gate';

/** Tracing on: starts from activities carry the trace on (docs/operations.md → Traces). */
function temporalClient(connection: ConnectionLike, config: AppConfig, converter: DataConverterOptions): Client {
  const interceptors = tracingClientInterceptors(config.tracing.enabled);
  return new Client({ connection, namespace: config.temporal.namespace, interceptors, ...converter });
}

const warn = (logger: Logger) => (message: string) => logger.warn(message);

const temporalClients: Provider[] = [
  // Payload encryption (docs/operations.md → Payload encryption): one data converter for every
  // client and worker of this process; `{}` (nothing added) with the codec off.
  { provide: DATA_CONVERTER, inject: [WORKER_CONFIG], useFactory: (config: AppConfig) => dataConverterOptions(config) },
  {
    provide: Client,
    inject: [TemporalConnections, WORKER_CONFIG, DATA_CONVERTER],
    useFactory: (connections: TemporalConnections, config: AppConfig, converter: DataConverterOptions) =>
      temporalClient(connections.client, config, converter),
  },
  // Runs and alerts are started from the worker's own connection, so the server can hand their
  // first workflow task straight back to this worker (eager workflow start) instead of a poll.
  {
    provide: WORKER_CLIENT,
    inject: [TemporalConnections, WORKER_CONFIG, DATA_CONVERTER],
    useFactory: (connections: TemporalConnections, config: AppConfig, converter: DataConverterOptions) =>
      temporalClient(connections.worker, config, converter),
  },
  {
    provide: EAGER_JOB_GATEWAY,
    inject: [WORKER_CLIENT, WORKER_CONFIG],
    useFactory: (client: Client, config: AppConfig) => new JobWorkflowGateway(client, config.temporal.task_queue),
  },
  {
    provide: AlertWorkflowGateway,
    inject: [WORKER_CLIENT, WORKER_CONFIG],
    useFactory: (client: Client, config: AppConfig) =>
      new AlertWorkflowGateway(client, alertsTaskQueue(config.temporal.task_queue)),
  },
];

const jobProviders: Provider[] = [
  {
    provide: SinkSender,
    inject: [SecretsRepository, SecretsCipher, SinkRegistry, TemporalConnections, WORKER_CONFIG, WorkspacesRepository],
    useFactory: (
      secrets: SecretsRepository,
      cipher: SecretsCipher,
      registry: SinkRegistry,
      connections: TemporalConnections,
      config: AppConfig,
      workspaces: WorkspacesRepository,
    ) =>
      new SinkSender({
        secrets,
        cipher,
        config,
        registry,
        services: sinkServices(config, () => connections.client),
        workspaces,
      }),
  },
  {
    provide: JOB_ACTIVITIES,
    inject: [
      JobsRepository,
      RunsRepository,
      WorkspacesRepository,
      OccurrenceBurstsRepository,
      JobLifecycle,
      EAGER_JOB_GATEWAY,
      SinkSender,
      WORKER_METRICS,
      WORKER_CONFIG,
      ParkedQueue,
      OperationsRepository,
      CalendarsRepository,
      BackfillsRepository,
      DestinationsRepository,
    ],
    useFactory: (
      jobs: JobsRepository,
      runs: RunsRepository,
      workspaces: WorkspacesRepository,
      bursts: OccurrenceBurstsRepository,
      lifecycle: JobLifecycle,
      gateway: JobWorkflowGateway,
      sender: SinkSender,
      metrics: WorkerMetrics,
      config: AppConfig,
      parkedQueue: ParkedQueue,
      operations: OperationsRepository,
      calendars: CalendarsRepository,
      backfills: BackfillsRepository,
      destinations: DestinationsRepository,
    ) => {
      const parkAboveJobsGate = parkAboveJobs({
        threshold: config.worker.park_above_jobs,
        countJobs: () => jobs.countAll(),
        now: Date.now,
        warn: warn(new Logger(WORKER_LOG_CONTEXT)),
      });
      return createActivities({
        jobs,
        runs,
        workspaces,
        lifecycle,
        gateway,
        sender,
        config,
        clock: () => new Date(),
        random: Math.random,
        metrics,
        bursts,
        operations,
        calendars,
        backfills,
        destinations: new DestinationGate({ destinations }),
        warn: warn(new Logger(WORKER_LOG_CONTEXT)),
        // Jobs park only while the deployment holds more than `worker.park_above_jobs` and a
        // worker polls the parked queue.
        ...(config.worker.park_idle_after_ms > 0
          ? {
              park: {
                taskQueue: parkedTaskQueue(config.temporal.task_queue),
                afterMs: config.worker.park_idle_after_ms,
              },
              // The parked queue's worker starts with the first job that parks.
              parkingApplies: async () => (await parkAboveJobsGate()) && parkedQueue.serving(),
            }
          : {}),
      });
    },
  },
];

const alertProviders: Provider[] = [
  {
    provide: ALERT_ACTIVITIES,
    inject: [AlertEventsRepository, AlertChannelsRepository, WORKER_CONFIG],
    useFactory: (alertEvents: AlertEventsRepository, alertChannels: AlertChannelsRepository, config: AppConfig) =>
      createAlertActivities({
        alertEvents,
        alertChannels,
        alertSender: new AlertSender({
          serviceName: config.service_name,
          version: config.version,
          smtp: config.smtp,
          rules: networkRulesOf(config),
          timeoutMs: config.alerts.send_timeout_ms,
        }),
        verificationKey: verificationKeyFromConfig(config),
        config,
        clock: () => new Date(),
      }),
  },
  {
    provide: AlertSweeper,
    inject: [AlertEventsRepository, AlertDispatcher, WORKER_CONFIG],
    useFactory: (events: AlertEventsRepository, alerts: AlertDispatcher, config: AppConfig) =>
      new AlertSweeper({ events, dispatch: (eventIds) => alerts.dispatch(eventIds), config, clock: () => new Date() }),
  },
];

/** What `OrchestrationModule` and the activities build on, besides the global connections. */
const baseProviders: Provider[] = [
  ...overDataSourceProviders(),
  ...temporalClients,
  {
    provide: WORKER_METRICS,
    inject: [RunsRepository, DestinationsRepository, WORKER_CONFIG],
    useFactory: (runs: RunsRepository, destinations: DestinationsRepository, config: AppConfig) =>
      createWorkerMetrics({
        taskQueue: config.temporal.task_queue,
        readDestinations: () => destinations.gauges(),
        readBacklog: async () => {
          const [{ count, oldest }, stalled] = await Promise.all([
            runs.backlog(),
            runs.countStalled(new Date(Date.now() - config.scheduler.stalled_run_grace_ms)),
          ]);
          return { count, oldestSeconds: oldest ? Math.max(0, Date.now() - oldest.getTime()) / 1000 : 0, stalled };
        },
      }),
  },
  {
    provide: AlertDispatcher,
    inject: [AlertWorkflowGateway, AlertEventsRepository],
    useFactory: (gateway: AlertWorkflowGateway, events: AlertEventsRepository) => new AlertDispatcher(gateway, events),
  },
];

/**
 * The repositories, the Temporal clients (the client one, the worker's own for eager starts and
 * its gateways), the metrics and the alert dispatcher: what `JobLifecycle` and the activities
 * are built over.
 */
@Module({
  providers: baseProviders,
  exports: [
    ...OVER_DATA_SOURCE,
    DATA_CONVERTER,
    Client,
    WORKER_CLIENT,
    EAGER_JOB_GATEWAY,
    AlertWorkflowGateway,
    WORKER_METRICS,
    AlertDispatcher,
  ],
})
export class WorkerBaseModule {}

/**
 * Everything the worker's Temporal workers and periodic passes run, composed over the global
 * `ConnectionsModule` and `SinkKindsModule` the way the API composes the same objects: the
 * repositories, the Temporal clients and gateways, `JobLifecycle`, `BackgroundWork` and the job
 * workflow gateway (`OrchestrationModule`, as in the API, here with alerts and run metrics), the
 * sink sender and both activity sets. Building it does no I/O.
 */
@Module({
  imports: [
    WorkerBaseModule,
    OrchestrationModule.forRoot({
      imports: [WorkerBaseModule],
      config: WORKER_CONFIG,
      client: Client,
      logContext: WORKER_LOG_CONTEXT,
      lifecycle: {
        inject: [AlertEventsRepository, AlertDispatcher, WORKER_METRICS],
        useFactory: (alertEvents: AlertEventsRepository, alerts: AlertDispatcher, metrics: WorkerMetrics) => ({
          // Alerts (docs/alerts.md): events recorded by closeRun start their workflow on the alerts queue.
          alerts: { events: alertEvents, dispatch: (eventIds) => alerts.dispatch(eventIds) },
          onRunClosed: (run) => recordRunClosed(metrics, run),
        }),
      },
    }),
  ],
  providers: [ParkedQueue, ...jobProviders, ...alertProviders],
  exports: [WorkerBaseModule, OrchestrationModule, JOB_ACTIVITIES, ALERT_ACTIVITIES, AlertSweeper, ParkedQueue],
})
export class ActivitiesModule {}
