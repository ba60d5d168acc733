import { type DynamicModule, Global, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SecretsCipher, secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import { flushTracing } from '@svc/common/tracing';
import { createDataSource } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { TemporalConnections } from './temporal/connect';
import { WORKER_CONFIG, WORKER_LOG_CONTEXT } from './worker.constants';

/**
 * The worker's configuration and what it connects to: the secrets key, PostgreSQL and Temporal.
 * Global, so Nest builds it first and closes it last, after the workers have drained.
 */
@Global()
@Module({})
export class ConnectionsModule implements OnApplicationShutdown {
  static forRoot(config: AppConfig): DynamicModule {
    // Before connecting anywhere: without the key no `{{secret.NAME}}` could be sent, so a
    // missing or malformed one stops the worker with the key's own message (as the API does).
    const cipher = secretsCipherFromConfig(config);
    return {
      module: ConnectionsModule,
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: SecretsCipher, useValue: cipher },
        {
          provide: DataSource,
          useFactory: async () => createDataSource(config.database.url).initialize(),
        },
        {
          provide: TemporalConnections,
          // TLS, API key and metadata from envconfig and the config file (docs/operations.md →
          // Connecting to Temporal); an unreachable frontend is retried, any other failure stops
          // the worker with one line.
          useFactory: () => {
            const logger = new Logger(WORKER_LOG_CONTEXT);
            return TemporalConnections.open(config.temporal, (message) => logger.warn(message));
          },
        },
      ],
      exports: [WORKER_CONFIG, SecretsCipher, DataSource, TemporalConnections],
    };
  }

  /** Last of all, once the connections are closed: the spans the exporter still holds. */
  async onApplicationShutdown(): Promise<void> {
    await flushTracing();
  }
}
