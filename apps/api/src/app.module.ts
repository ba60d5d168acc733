import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { RunsModule } from './runs/runs.module';
import { SchedulesModule } from './schedules/schedules.module';
import { TemporalModule } from './temporal/temporal.module';

@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        TemporalModule,
        HealthModule,
        SchedulesModule,
        JobsModule,
        RunsModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: ApiKeyGuard }],
    };
  }
}
