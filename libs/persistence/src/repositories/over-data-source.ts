import { DataSource } from 'typeorm';
import { AlertChannelsRepository } from './alert-channels.repository';
import { AlertEventsRepository } from './alert-events.repository';
import { AlertRulesRepository } from './alert-rules.repository';
import { ApiKeysRepository } from './api-keys.repository';
import { AuditRepository } from './audit.repository';
import { BackfillsRepository } from './backfills.repository';
import { CalendarsRepository } from './calendars.repository';
import { DestinationsRepository } from './destinations.repository';
import { IdempotencyRepository } from './idempotency.repository';
import { JobsRepository } from './jobs.repository';
import { OccurrenceBurstsRepository } from './occurrence-bursts.repository';
import { OperationsRepository } from './operations.repository';
import { RateLimitsRepository } from './rate-limits.repository';
import { RunsRepository } from './runs.repository';
import { SecretsRepository } from './secrets.repository';
import { ServiceHealthRepository } from './service-health.repository';
import { SessionsRepository } from './sessions.repository';
import { StatsRepository } from './stats.repository';
import { DatabaseProbe, Transactions } from './transactions';
import { UsersRepository } from './users.repository';
import { WorkspacesRepository } from './workspaces.repository';

/**
 * Every class built over the process's one DataSource and nothing else: the repositories, the
 * health probe and `Transactions`. The API and the worker provide them all, from this one list.
 */
export const OVER_DATA_SOURCE = [
  AlertChannelsRepository,
  AlertEventsRepository,
  AlertRulesRepository,
  ApiKeysRepository,
  AuditRepository,
  BackfillsRepository,
  CalendarsRepository,
  DatabaseProbe,
  DestinationsRepository,
  IdempotencyRepository,
  JobsRepository,
  OccurrenceBurstsRepository,
  OperationsRepository,
  RateLimitsRepository,
  RunsRepository,
  SecretsRepository,
  ServiceHealthRepository,
  SessionsRepository,
  StatsRepository,
  Transactions,
  UsersRepository,
  WorkspacesRepository,
];

/**
 * Each of `OVER_DATA_SOURCE` as a factory provider (`new Class(dataSource)`) in the shape a Nest
 * module's `providers` takes; this lib imports no Nest.
 */
export function overDataSourceProviders() {
  return OVER_DATA_SOURCE.map((provide) => ({
    provide,
    inject: [DataSource],
    useFactory: (dataSource: DataSource) => new provide(dataSource),
  }));
}
