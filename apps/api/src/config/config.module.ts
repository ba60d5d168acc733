import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from '@svc/common';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Validated, typed configuration (style.md rule 8); tests pass their own via createApp(). */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config?: AppConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useFactory: () => config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
