import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SinkKindsModule } from '@svc/extensions';
import { ActivitiesModule } from './activities/activities.module';
import { ConnectionsModule } from './connections.module';
import { ServiceHealthMonitor } from './health/service-health.monitor';
import { PeriodicPasses } from './periodic-passes';
import { WorkersModule } from './temporal/workers.module';

/**
 * The worker process: no HTTP server, Temporal workers over the shared libs, composed through
 * Nest providers like the API. Nest starts modules deepest first and stops them in reverse, which
 * gives the order the worker needs: the connections (global) open first and close last, the
 * workers (`WorkersModule`) start before the periodic passes declared here and stop after them.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConnectionsModule.forRoot(config),
        // The same sink kinds as the API's (docs/extending.md): attempts send through them.
        SinkKindsModule.forRoot(config),
        ActivitiesModule,
        WorkersModule,
      ],
      providers: [PeriodicPasses, ServiceHealthMonitor],
    };
  }
}
