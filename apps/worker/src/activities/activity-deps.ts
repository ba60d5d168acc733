import type { AppConfig } from '@svc/common';
import type { WorkerMetrics } from '@svc/common/metrics';
import type { JobsRepository, RunsRepository } from '@svc/persistence';
import type { JobLifecycle } from '@svc/orchestration';

/** What the job and the run activities both read and write through; the worker gives both the same ones. */
export interface CoreActivityDeps {
  jobs: JobsRepository;
  runs: RunsRepository;
  lifecycle: JobLifecycle;
  config: AppConfig;
  clock: () => Date;
  /** Prometheus instruments; absent in tests that do not look at them. */
  metrics?: WorkerMetrics;
}
