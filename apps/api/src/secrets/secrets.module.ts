import { Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SecretsCipher, secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import { APP_CONFIG } from '../config/config.module';
import { SecretsController } from './secrets.controller';
import { SecretsService } from './secrets.service';

/**
 * `/api/v1/secrets`. The cipher is built from `secrets.encryption_key` when the app is
 * assembled: `createApp` checks the key first, so a missing one is a clear start-up error.
 */
@Module({
  controllers: [SecretsController],
  providers: [
    SecretsService,
    {
      provide: SecretsCipher,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => secretsCipherFromConfig(config),
    },
  ],
  // The job module's sink tests decrypt `{{secret.NAME}}` at send time with the same cipher.
  exports: [SecretsCipher],
})
export class SecretsModule {}
