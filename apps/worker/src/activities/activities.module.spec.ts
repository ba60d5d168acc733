import 'reflect-metadata';
import { Global, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { buildConfig } from '@svc/common';
import { SecretsCipher, secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import { SinkKindsModule } from '@svc/extensions';
import {
  AlertWorkflowGateway,
  BackgroundWork,
  JobLifecycle,
  type JobLifecycleDeps,
  JobWorkflowGateway,
  SinkSender,
} from '@svc/orchestration';
import { createDataSource, JobsRepository, RunsRepository } from '@svc/persistence';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { DataSource } from 'typeorm';
import { AlertSweeper } from '../alerts/alert-sweeper';
import { TemporalConnections } from '../temporal/connect';
import {
  ALERT_ACTIVITIES,
  EAGER_JOB_GATEWAY,
  JOB_ACTIVITIES,
  WORKER_CLIENT,
  WORKER_CONFIG,
  WORKER_METRICS,
} from '../worker.constants';
import { ActivitiesModule } from './activities.module';

/** What the workflows call (libs/workflow-contract/src/activity-types.ts), by task queue. */
const JOB_QUEUE_ACTIVITIES = [
  'planOccurrences',
  'readWorkspaceGate',
  'openRuns',
  'startQueuedRun',
  'cancelRuns',
  'loadJobSnapshot',
  'markJobCompleted',
  'runAttempt',
  'finishRun',
];
const ALERT_QUEUE_ACTIVITIES = ['planAlert', 'sendAlert', 'recordAlertFailure', 'sendChannelVerification'];

describe('ActivitiesModule', () => {
  const config = buildConfig(
    { secrets: { encryption_key: Buffer.from('svc test secrets key, 32 bytes!!').toString('base64') } },
    // Nothing listens there, and nothing is asked: building the module does no I/O.
    { DATABASE_URL: 'postgres://svc@127.0.0.1:9/none', TEMPORAL_ADDRESS: '127.0.0.1:9' },
  );
  // Lazy connections stand in for the worker's two: they connect on first use, which never comes.
  const workerConnection = Connection.lazy({ address: config.temporal.address }) as unknown as NativeConnection;
  const clientConnection = Connection.lazy({ address: config.temporal.address });
  const dataSource = createDataSource(config.database.url);

  /** `ConnectionsModule`'s exports, without connecting anywhere. */
  @Global()
  @Module({
    providers: [
      { provide: WORKER_CONFIG, useValue: config },
      { provide: SecretsCipher, useValue: secretsCipherFromConfig(config) },
      { provide: DataSource, useValue: dataSource },
      { provide: TemporalConnections, useValue: new TemporalConnections(workerConnection, clientConnection) },
    ],
    exports: [WORKER_CONFIG, SecretsCipher, DataSource, TemporalConnections],
  })
  class OfflineConnectionsModule {}

  let app: INestApplicationContext;

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(
      {
        module: class WorkerUnderTest {},
        imports: [OfflineConnectionsModule, SinkKindsModule.forRoot(config), ActivitiesModule],
      },
      { logger: false, abortOnError: false },
    );
  });

  afterAll(async () => {
    await app.close();
  });

  it('should provide every activity the workflows call, on the queue that runs them', () => {
    const jobActivities = app.get<Record<string, unknown>>(JOB_ACTIVITIES);
    const alertActivities = app.get<Record<string, unknown>>(ALERT_ACTIVITIES);
    for (const name of JOB_QUEUE_ACTIVITIES) {
      expect({ name, type: typeof jobActivities[name] }).toEqual({ name, type: 'function' });
    }
    for (const name of ALERT_QUEUE_ACTIVITIES) {
      expect({ name, type: typeof alertActivities[name] }).toEqual({ name, type: 'function' });
    }
  });

  it('should start runs and alerts from the worker’s own connection (eager start), the rest from the client one', () => {
    expect(app.get<Client>(WORKER_CLIENT).connection).toBe(workerConnection);
    expect(app.get(Client).connection).toBe(clientConnection);
    expect(app.get(EAGER_JOB_GATEWAY)).toBeInstanceOf(JobWorkflowGateway);
    expect(app.get(EAGER_JOB_GATEWAY)).not.toBe(app.get(JobWorkflowGateway));
    expect(app.get(AlertWorkflowGateway)).toBeInstanceOf(AlertWorkflowGateway);
  });

  it('should resolve what the periodic passes and the workers use beside the activities', () => {
    expect(app.get(JobLifecycle)).toBeInstanceOf(JobLifecycle);
    expect(app.get(SinkSender)).toBeInstanceOf(SinkSender);
    expect(app.get(AlertSweeper)).toBeInstanceOf(AlertSweeper);
    expect(app.get(JobsRepository)).toBeInstanceOf(JobsRepository);
    expect(app.get(RunsRepository)).toBeInstanceOf(RunsRepository);
    expect(app.get(WORKER_METRICS)).toHaveProperty('registry');
  });

  it('should build JobLifecycle through OrchestrationModule, over the BackgroundWork the workers drain', () => {
    const deps = (app.get(JobLifecycle) as unknown as { deps: JobLifecycleDeps }).deps;
    expect(deps.followUps).toBe(app.get(BackgroundWork));
    expect(deps.gateway).toBe(app.get(JobWorkflowGateway));
    // The worker's additions: alerts recorded by closeRun, and the run metrics.
    expect(deps.alerts?.events).toBeDefined();
    expect(typeof deps.onRunClosed).toBe('function');
  });

  it('should build without connecting to PostgreSQL', () => {
    expect(dataSource.isInitialized).toBe(false);
  });
});
