import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type AppConfig, describeTemporalConnection } from '@svc/common';
import { BackgroundWork } from '@svc/orchestration';
import { WORKER_CONFIG, WORKER_LOG_CONTEXT } from '../worker.constants';
import { AlertsWorker, JobsWorker, ParkedJobsWorker, type QueueWorker, RunsWorker } from './queue-workers';

/**
 * The Temporal workers of the process as one (each a provider of its own, `queue-workers.ts`,
 * started before this and drained after it stops them): the start-up line once all poll, the
 * shutdown line, and the follow-ups the last activities queued.
 */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private readonly workers: QueueWorker[];

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    private readonly followUps: BackgroundWork,
    jobs: JobsWorker,
    runs: RunsWorker,
    alerts: AlertsWorker,
    parked: ParkedJobsWorker,
  ) {
    this.workers = [jobs, runs, alerts, parked];
  }

  onApplicationBootstrap(): void {
    if (!this.config.smtp.host) {
      this.logger.warn('SMTP is not configured (smtp.host, smtp.from): email alert channels receive nothing');
    }
    const queues = this.workers.filter((worker) => worker.started).map((worker) => worker.taskQueue);
    this.logger.log(`polling task queues ${queues.join(', ')} on ${describeTemporalConnection(this.config.temporal)}`);
  }

  /** Graceful stop (SIGTERM, SIGINT), first step: no worker polls any more (the passes have stopped). */
  beforeApplicationShutdown(): void {
    const inFlight = this.workers.reduce((sum, worker) => sum + worker.activitiesInFlight, 0);
    this.workers.forEach((worker) => worker.stopPolling());
    this.logger.log(
      `shutting down: stopped polling; waiting for ${inFlight} activities in flight ` +
        `(up to ${this.config.worker.shutdown_grace_time_ms / 1000} s)`,
    );
  }

  /** Once every worker has drained: follow-ups the last activities queued (an auto-disable told to its workflow). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stopped()));
    await this.followUps.drain();
  }
}
