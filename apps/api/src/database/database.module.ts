import { Global, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@svc/common';
import { createDataSource, OVER_DATA_SOURCE, overDataSourceProviders } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';

const RETRY_MS = 2_000;

@Injectable()
class DataSourceLifecycle implements OnApplicationShutdown {
  private retry?: NodeJS.Timeout;
  constructor(private readonly dataSource: DataSource) {
    // The API starts (and /readyz answers 503) while PostgreSQL is down; connect when it is back.
    if (!dataSource.isInitialized) {
      const logger = new Logger('Database');
      logger.warn('PostgreSQL unreachable at start-up; retrying in the background');
      this.retry = setInterval(() => {
        if (this.dataSource.isInitialized) {
          return clearInterval(this.retry);
        }
        this.dataSource.initialize().then(
          () => clearInterval(this.retry),
          () => undefined,
        );
      }, RETRY_MS);
      this.retry.unref();
    }
  }
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.retry);
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
    }
  }
}

/** One TypeORM DataSource for the process (migrations are run by `svc migrate`, never here). */
@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const ds = createDataSource(config.database.url);
        await ds.initialize().catch(() => undefined);
        return ds;
      },
    },
    DataSourceLifecycle,
    ...overDataSourceProviders(),
  ],
  exports: [DataSource, ...OVER_DATA_SOURCE],
})
export class DatabaseModule {}
