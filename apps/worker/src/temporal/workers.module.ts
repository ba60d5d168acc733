import { Module } from '@nestjs/common';
import { ActivitiesModule } from '../activities/activities.module';
import { MetricsServer } from '../metrics/metrics-server';
import { WorkerService } from './worker.service';

/** The Temporal workers and the `/metrics` listener that starts before them and closes after. */
@Module({
  imports: [ActivitiesModule],
  providers: [MetricsServer, WorkerService],
})
export class WorkersModule {}
