import { Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SecretsCipher } from '@svc/common/secrets-crypto';
import { SecretsRepository } from '@svc/persistence';
import { SinkSender } from '@svc/orchestration';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { APP_CONFIG } from '../config/config.module';
import { SecretsModule } from '../secrets/secrets.module';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobsController } from './jobs.controller';
import { JobsService } from './jobs.service';
import { SinkTestService } from './sink-test.service';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';

@Module({
  imports: [SecretsModule],
  controllers: [JobsController],
  providers: [
    JobsService,
    JobScheduleValidator,
    SinkValidator,
    SinkTemplateChecker,
    SinkTestService,
    IdempotencyService,
    {
      // Sink tests send exactly as the worker's attempts do (secrets decrypted at send time).
      provide: SinkSender,
      inject: [SecretsRepository, SecretsCipher, APP_CONFIG],
      useFactory: (secrets: SecretsRepository, cipher: SecretsCipher, config: AppConfig) =>
        new SinkSender({ secrets, cipher, config }),
    },
  ],
})
export class JobsModule {}
