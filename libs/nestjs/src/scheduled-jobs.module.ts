import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ScheduledJobsHealthIndicator } from './health';
import {
  SCHEDULED_JOBS_OPTIONS,
  type ScheduledJobsModuleAsyncOptions,
  type ScheduledJobsModuleOptions,
} from './options';
import { ScheduledJobsExplorer } from './scheduled-jobs.explorer';
import { ScheduledJobsService } from './scheduled-jobs.service';

/**
 * `ScheduledJobsModule.forRoot({ baseUrl, apiKey, owner, receiver: { path, publicUrl } })` once in
 * the root module: every `@ScheduledJob` method of the app becomes a job of the service, applied
 * at bootstrap, delivered to `receiver.path` (docs/nestjs.md).
 */
@Module({})
export class ScheduledJobsModule {
  static forRoot(options: ScheduledJobsModuleOptions): DynamicModule {
    return ScheduledJobsModule.build([{ provide: SCHEDULED_JOBS_OPTIONS, useValue: options }], []);
  }

  /** `forRootAsync({ imports: [ConfigModule], inject: [ConfigService], useFactory: (config) => ({…}) })`. */
  static forRootAsync(options: ScheduledJobsModuleAsyncOptions): DynamicModule {
    return ScheduledJobsModule.build(
      [{ provide: SCHEDULED_JOBS_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] }],
      options.imports ?? [],
    );
  }

  private static build(
    optionsProvider: DynamicModule['providers'] & object,
    imports: NonNullable<DynamicModule['imports']>,
  ): DynamicModule {
    return {
      module: ScheduledJobsModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [...optionsProvider, ScheduledJobsExplorer, ScheduledJobsService, ScheduledJobsHealthIndicator],
      exports: [ScheduledJobsService, ScheduledJobsHealthIndicator],
    };
  }
}
