import { type DynamicModule, type InjectionToken, Logger, Module, type ModuleMetadata } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { AuditRepository, JobsRepository, RunsRepository, WorkspacesRepository } from '@svc/persistence';
import type { Client } from '@temporalio/client';
import { DataSource } from 'typeorm';
import { BackgroundWork, FOLLOW_UP_RETRY } from './background-work';
import type { JobLifecycleDeps } from './job-changes';
import { createJobLifecycle, JobLifecycle } from './job-lifecycle';
import { JobWorkflowGateway } from './job-workflow.gateway';

/** What a process adds to its `JobLifecycle` (the worker: alerts and run metrics). */
export type JobLifecycleExtras = Pick<JobLifecycleDeps, 'alerts' | 'onRunClosed'>;

export interface OrchestrationModuleOptions {
  /** The token of the process's `AppConfig`. */
  config: InjectionToken;
  /** The token of the Temporal `Client` the gateway starts, signals and cancels workflows with. */
  client: InjectionToken;
  /**
   * Modules that provide what is injected besides the global ones: the Temporal client, the
   * repositories (`JobsRepository`, `RunsRepository`, `AuditRepository`, `WorkspacesRepository`),
   * the `DataSource`, and whatever `lifecycle.inject` names.
   */
  imports?: ModuleMetadata['imports'];
  /** The logger context of `JobLifecycle`'s warnings (default `JobLifecycle`). */
  logContext?: string;
  /** The process's additions to `JobLifecycle`, built from the providers `inject` names. */
  lifecycle?: {
    inject: InjectionToken[];
    useFactory: (...deps: never[]) => JobLifecycleExtras;
  };
}

const LIFECYCLE_EXTRAS = Symbol('JOB_LIFECYCLE_EXTRAS');

/**
 * The job's orchestration objects, provided once for the API and the worker alike:
 * `BackgroundWork` (the retried follow-ups that tell job workflows of each change; the process
 * drains it at shutdown), the `JobWorkflowGateway` over the given client and `JobLifecycle` over
 * both. Building it does no I/O. Nest-only: the rest of the library stays framework-free, so this
 * is imported from `@svc/orchestration/orchestration.module`.
 */
@Module({})
export class OrchestrationModule {
  static forRoot(options: OrchestrationModuleOptions): DynamicModule {
    const extras = options.lifecycle ?? { inject: [], useFactory: () => ({}) };
    const logContext = options.logContext ?? JobLifecycle.name;
    return {
      module: OrchestrationModule,
      imports: options.imports ?? [],
      providers: [
        {
          // Retried with the defaults (FOLLOW_UP_RETRY), reporting through Nest's logger.
          provide: BackgroundWork,
          useFactory: () => new BackgroundWork(FOLLOW_UP_RETRY, new Logger(BackgroundWork.name)),
        },
        {
          provide: JobWorkflowGateway,
          inject: [options.client, options.config],
          useFactory: (client: Client, config: AppConfig) => {
            const logger = new Logger(JobWorkflowGateway.name);
            return new JobWorkflowGateway(client, config.temporal.task_queue, (message) => logger.warn(message));
          },
        },
        { provide: LIFECYCLE_EXTRAS, inject: extras.inject, useFactory: extras.useFactory },
        {
          provide: JobLifecycle,
          inject: [
            DataSource,
            JobsRepository,
            RunsRepository,
            AuditRepository,
            WorkspacesRepository,
            JobWorkflowGateway,
            options.config,
            BackgroundWork,
            LIFECYCLE_EXTRAS,
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
            added: JobLifecycleExtras,
          ) => {
            const logger = new Logger(logContext);
            const warn = (message: string) => logger.warn(message);
            return createJobLifecycle(
              { dataSource, jobs, runs, audit, workspaces },
              { gateway, config, warn, followUps, ...added },
            );
          },
        },
      ],
      exports: [BackgroundWork, JobWorkflowGateway, JobLifecycle],
    };
  }
}
