import 'reflect-metadata';
import { DataSource } from 'typeorm';
import {
  AlertChannelEntity,
  AlertCooldownEntity,
  AlertDeliveryEntity,
  AlertEventEntity,
  AlertRuleEntity,
  ApiKeyEntity,
  AttemptEntity,
  AuditLogEntity,
  IdempotencyRecordEntity,
  JobEntity,
  MembershipEntity,
  OperationEntity,
  OperationItemEntity,
  BackfillEntity,
  BackfillItemEntity,
  RunEntity,
  SecretEntity,
  CalendarEntity,
  SessionEntity,
  UsageCounterEntity,
  UserEntity,
  WorkspaceEntity,
} from './entities';
import { InitialSchema1763769600000 } from './migrations/1763769600000-InitialSchema';
import { RunStatsIndexAuditRetention1795382633773 } from './migrations/1795382633773-RunStatsIndexAuditRetention';
import { RunsAwaitingFirstAttemptIndex1795400000000 } from './migrations/1795400000000-RunsAwaitingFirstAttemptIndex';
import { RateLimitWindows1795400000001 } from './migrations/1795400000001-RateLimitWindows';
import { Sessions1795400000100 } from './migrations/1795400000100-Sessions';
import { AlertDelivery1795400000500 } from './migrations/1795400000500-AlertDelivery';
import { AttemptBodyRetention1795400000600 } from './migrations/1795400000600-AttemptBodyRetention';
import { OneRunPerOccurrence1795400000700 } from './migrations/1795400000700-OneRunPerOccurrence';
import { RunRetention1795400000820 } from './migrations/1795400000820-RunRetention';
import { OccurrenceBursts1795400000900 } from './migrations/1795400000900-OccurrenceBursts';
import { SinkStartedWorkflow1795400002800 } from './migrations/1795400002800-SinkStartedWorkflow';
import { WorkspaceTemporalWorkflowTaskQueues1795400004100 } from './migrations/1795400004100-WorkspaceTemporalWorkflowTaskQueues';
import { JobKeys1795400004200 } from './migrations/1795400004200-JobKeys';
import { OccurrenceSkips1795400004400 } from './migrations/1795400004400-OccurrenceSkips';
import { Calendars1795400004410 } from './migrations/1795400004410-Calendars';
import { RunOverrides1795400004500 } from './migrations/1795400004500-RunOverrides';
import { SpreadWindows1795400004700 } from './migrations/1795400004700-SpreadWindows';
import { BulkOperations1795400004800 } from './migrations/1795400004800-BulkOperations';
import { Backfills1795400004900 } from './migrations/1795400004900-Backfills';
import { TypedJobPolicies1795400005050 } from './migrations/1795400005050-TypedJobPolicies';
import { DestinationLimits1795400005100 } from './migrations/1795400005100-DestinationLimits';
import { ServiceAlertEvents1795400005200 } from './migrations/1795400005200-ServiceAlertEvents';

export const ALL_ENTITIES = [
  WorkspaceEntity,
  UserEntity,
  MembershipEntity,
  OperationEntity,
  OperationItemEntity,
  ApiKeyEntity,
  JobEntity,
  RunEntity,
  AttemptEntity,
  SecretEntity,
  CalendarEntity,
  AlertChannelEntity,
  AlertRuleEntity,
  AlertEventEntity,
  AlertDeliveryEntity,
  AlertCooldownEntity,
  AuditLogEntity,
  UsageCounterEntity,
  IdempotencyRecordEntity,
  SessionEntity,
  OperationEntity,
  OperationItemEntity,
  BackfillEntity,
  BackfillItemEntity,
];

/** In order. Listed explicitly (no globs) so the same list works from sources and from dist. */
export const ALL_MIGRATIONS = [
  InitialSchema1763769600000,
  RunStatsIndexAuditRetention1795382633773,
  RunsAwaitingFirstAttemptIndex1795400000000,
  RateLimitWindows1795400000001,
  Sessions1795400000100,
  AlertDelivery1795400000500,
  AttemptBodyRetention1795400000600,
  OneRunPerOccurrence1795400000700,
  RunRetention1795400000820,
  OccurrenceBursts1795400000900,
  SinkStartedWorkflow1795400002800,
  WorkspaceTemporalWorkflowTaskQueues1795400004100,
  JobKeys1795400004200,
  OccurrenceSkips1795400004400,
  Calendars1795400004410,
  RunOverrides1795400004500,
  SpreadWindows1795400004700,
  BulkOperations1795400004800,
  Backfills1795400004900,
  TypedJobPolicies1795400005050,
  DestinationLimits1795400005100,
  ServiceAlertEvents1795400005200,
];

/** Table recording applied migrations. */
export const MIGRATIONS_TABLE = 'typeorm_migrations';

export interface DataSourceOptions {
  /** Connection pool size (pg `max`); default 10. */
  poolSize?: number;
  /** Shown in `pg_stat_activity`. */
  applicationName?: string;
  /** How long a query may wait for a connection (a free pool slot or a new connect); default 30 s. */
  connectTimeoutMs?: number;
}

/**
 * A request waits at most this long for a connection, then fails as "database unavailable" (a 503
 * in the API, a retried activity in the worker) instead of hanging: without it pg waits forever,
 * and a connect that never completes, or a pool whose slots are all stuck, hangs every request.
 */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * A DataSource over PostgreSQL with every entity and migration registered. Never synchronizes:
 * the schema comes from migrations only (`svc migrate`, style.md rule 16). Call `initialize()`.
 */
export function createDataSource(url: string, opts: DataSourceOptions = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ALL_ENTITIES,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    poolSize: opts.poolSize ?? 10,
    applicationName: opts.applicationName,
    connectTimeoutMS: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    // TCP keepalive finds a connection whose server vanished without closing it (a lost host).
    extra: { keepAlive: true },
  });
}
