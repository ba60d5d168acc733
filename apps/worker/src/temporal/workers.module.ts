import { Module } from '@nestjs/common';
import { ActivitiesModule } from '../activities/activities.module';
import { MetricsServer } from '../metrics/metrics-server';
import { AlertsWorker, JobsWorker, ParkedJobsWorker, RunsWorker } from './queue-workers';
import { WorkerRuntime } from './worker-runtime';
import { WorkerService } from './worker.service';

/**
 * The Temporal workers, one provider per task queue over what `WorkerRuntime` makes them share, and
 * the `/metrics` listener that starts before them and closes after.
 */
@Module({
  imports: [ActivitiesModule],
  providers: [MetricsServer, WorkerRuntime, JobsWorker, RunsWorker, AlertsWorker, ParkedJobsWorker, WorkerService],
})
export class WorkersModule {}
