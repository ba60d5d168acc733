import 'reflect-metadata';
import { Global, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { buildConfig } from '@svc/common';
import {
  AuditRepository,
  createDataSource,
  JobsRepository,
  RunsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import { Client, Connection } from '@temporalio/client';
import { DataSource } from 'typeorm';
import { BackgroundWork } from '../src/background-work';
import type { JobLifecycleDeps } from '../src/job-changes';
import { JobLifecycle } from '../src/job-lifecycle';
import { JobWorkflowGateway } from '../src/job-workflow.gateway';
import { OrchestrationModule } from '../src/orchestration.module';

/**
 * `OrchestrationModule.forRoot` (issue 47): the one place `JobLifecycle`, `BackgroundWork` and the
 * job workflow gateway are provided, for the API and the worker; built here over a lazy client and
 * an unopened DataSource, so nothing connects.
 */
describe('OrchestrationModule', () => {
  const CONFIG = Symbol('CONFIG');
  const CLIENT = Symbol('CLIENT');
  const EXTRA = Symbol('EXTRA');
  const config = buildConfig({}, { DATABASE_URL: 'postgres://svc@127.0.0.1:9/none', TEMPORAL_ADDRESS: '127.0.0.1:9' });
  const dataSource = createDataSource(config.database.url);
  const client = new Client({ connection: Connection.lazy({ address: config.temporal.address }) });
  const onRunClosed = jest.fn();

  @Global()
  @Module({
    providers: [
      { provide: CONFIG, useValue: config },
      { provide: DataSource, useValue: dataSource },
    ],
    exports: [CONFIG, DataSource],
  })
  class GlobalsModule {}

  /** What a process provides beside the globals: the client, the repositories, an extra for the lifecycle. */
  @Module({
    providers: [
      { provide: CLIENT, useValue: client },
      { provide: EXTRA, useValue: onRunClosed },
      ...[JobsRepository, RunsRepository, AuditRepository, WorkspacesRepository].map((repository) => ({
        provide: repository,
        useValue: new repository(dataSource),
      })),
    ],
    exports: [CLIENT, EXTRA, JobsRepository, RunsRepository, AuditRepository, WorkspacesRepository],
  })
  class ProcessModule {}

  let app: INestApplicationContext;

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(
      {
        module: class ProcessUnderTest {},
        imports: [
          GlobalsModule,
          OrchestrationModule.forRoot({
            imports: [ProcessModule],
            config: CONFIG,
            client: CLIENT,
            logContext: 'Test',
            lifecycle: { inject: [EXTRA], useFactory: (closed: () => void) => ({ onRunClosed: closed }) },
          }),
        ],
      },
      { logger: false, abortOnError: false },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it('should provide the lifecycle over the one gateway and the one BackgroundWork it exports', () => {
    const lifecycle = app.get(JobLifecycle);
    const deps = (lifecycle as unknown as { deps: JobLifecycleDeps }).deps;
    expect(lifecycle).toBeInstanceOf(JobLifecycle);
    expect(app.get(JobWorkflowGateway)).toBeInstanceOf(JobWorkflowGateway);
    expect(app.get(BackgroundWork)).toBeInstanceOf(BackgroundWork);
    expect(deps.gateway).toBe(app.get(JobWorkflowGateway));
    expect(deps.followUps).toBe(app.get(BackgroundWork));
    expect(deps.dataSource).toBe(dataSource);
    expect(deps.config).toBe(config);
  });

  it('should start workflows through the given client, on the configured task queue', () => {
    const gateway = app.get(JobWorkflowGateway) as unknown as { client: Client; taskQueue: string };
    expect(gateway.client).toBe(client);
    expect(gateway.taskQueue).toBe(config.temporal.task_queue);
  });

  it('should add what the process gives the lifecycle (the worker: alerts and run metrics)', () => {
    const deps = (app.get(JobLifecycle) as unknown as { deps: JobLifecycleDeps }).deps;
    expect(deps.onRunClosed).toBe(onRunClosed);
    expect(deps.alerts).toBeUndefined();
    expect(typeof deps.warn).toBe('function');
  });

  it('should build without connecting anywhere', () => {
    expect(dataSource.isInitialized).toBe(false);
  });
});
