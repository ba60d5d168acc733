import { DynamicModule, Module } from '@nestjs/common';
import { type AppConfig, loadConfig } from '@svc/common';
import { SinkKindsModule } from '@svc/extensions';
import { createDataSource } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { WorkerService } from './temporal/worker.service';
import { WORKER_CONFIG } from './worker.constants';

/** The worker process: no HTTP server, just the Temporal worker over shared libs. */
@Module({})
export class WorkerModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      // The same sink kinds as the API's (docs/extending.md): attempts send through them.
      imports: [SinkKindsModule.forRoot(config)],
      providers: [
        { provide: WORKER_CONFIG, useFactory: () => config ?? loadConfig() },
        {
          provide: DataSource,
          inject: [WORKER_CONFIG],
          useFactory: async (cfg: AppConfig) => createDataSource(cfg.database.url).initialize(),
        },
        WorkerService,
      ],
    };
  }
}
