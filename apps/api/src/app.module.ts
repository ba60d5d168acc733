import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { SinkKindsModule } from '@svc/extensions';
import { AlertsModule } from './alerts/alerts.module';
import { BackfillsModule } from './backfills/backfills.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { CalendarsModule } from './calendars/calendars.module';
import { DestinationsModule } from './destinations/destinations.module';
import { AuditLogModule } from './audit-log/audit-log.module';
import { ApiRateLimitHook } from './auth/api-rate-limit.hook';
import { AuthModule } from './auth/auth.module';
import { CodecModule } from './codec/codec.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { MeModule } from './me/me.module';
import { OpenApiModule } from './openapi/openapi.module';
import { OperationsModule } from './operations/operations.module';
import { RunsModule } from './runs/runs.module';
import { SchedulesModule } from './schedules/schedules.module';
import { SecretsModule } from './secrets/secrets.module';
import { StatsModule } from './stats/stats.module';
import { TemporalModule } from './temporal/temporal.module';
import { UsageModule } from './usage/usage.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        // Sink kinds (docs/extending.md): the built-ins and the modules `sinks.modules` names.
        SinkKindsModule.forRoot(config),
        DatabaseModule,
        IdempotencyModule,
        TemporalModule,
        HealthModule,
        SchedulesModule,
        JobsModule,
        RunsModule,
        OperationsModule,
        BackfillsModule,
        MeModule,
        WorkspacesModule,
        ApiKeysModule,
        SecretsModule,
        CalendarsModule,
        DestinationsModule,
        AuditLogModule,
        UsageModule,
        StatsModule,
        AlertsModule,
        AuthModule,
        DashboardModule,
        CodecModule,
        OpenApiModule,
      ],
      // Here rather than in AuthModule: the root module initialises last, so the rate limit's
      // `onRequest` hook runs after the feature modules' ones (a 429 of `/codec/*` keeps its CORS grant).
      providers: [ApiRateLimitHook],
    };
  }
}
