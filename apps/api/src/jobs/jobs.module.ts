import { Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SecretsCipher } from '@svc/common/secrets-crypto';
import { SecretsRepository, WorkspacesRepository } from '@svc/persistence';
import { SinkRegistry, type SinkServices } from '@svc/delivery';
import { SinkSender, sinkServices } from '@svc/orchestration';
import type { Connection } from '@temporalio/client';
import { TEMPORAL_CONNECTION } from '../temporal/temporal.module';
import { APP_CONFIG } from '../config/config.module';
import { SecretsModule } from '../secrets/secrets.module';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobsController } from './jobs.controller';
import { JobsService } from './jobs.service';
import { JobsApplyService } from './jobs-apply.service';
import { JobsByKeyService } from './jobs-by-key.service';
import { JobSettingsFactory } from './job-settings.factory';
import { RunOverridesValidator } from './run-overrides.validator';
import { SINK_SERVICES } from './sink-services.token';
import { SinkTestService } from './sink-test.service';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';
import { OccurrenceSkipsController } from './occurrence-skips/occurrence-skips.controller';
import { OccurrenceSkipsService } from './occurrence-skips/occurrence-skips.service';

@Module({
  imports: [SecretsModule],
  controllers: [JobsController, OccurrenceSkipsController],
  providers: [
    JobsService,
    OccurrenceSkipsService,
    JobsByKeyService,
    JobsApplyService,
    JobSettingsFactory,
    JobScheduleValidator,
    SinkValidator,
    SinkTemplateChecker,
    RunOverridesValidator,
    SinkTestService,
    {
      // Sink tests send exactly as the worker's attempts do (secrets decrypted at send time).
      provide: SinkSender,
      inject: [SecretsRepository, SecretsCipher, APP_CONFIG, SinkRegistry, SINK_SERVICES, WorkspacesRepository],
      useFactory: (
        secrets: SecretsRepository,
        cipher: SecretsCipher,
        config: AppConfig,
        registry: SinkRegistry,
        services: SinkServices,
        workspaces: WorkspacesRepository,
      ) => new SinkSender({ secrets, cipher, config, registry, services, workspaces }),
    },
    {
      // What sink kinds may use of the API: its config and its (lazy) Temporal connection.
      provide: SINK_SERVICES,
      inject: [APP_CONFIG, TEMPORAL_CONNECTION],
      useFactory: (config: AppConfig, connection: Connection) => sinkServices(config, () => connection),
    },
  ],
  // Manual retries (RunsModule) and backfills validate their overrides as a trigger does.
  exports: [RunOverridesValidator],
})
export class JobsModule {}
