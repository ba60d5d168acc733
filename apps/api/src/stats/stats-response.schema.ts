import {
  arrayOf,
  enumOf,
  idOf,
  integer,
  named,
  nullable,
  number,
  object,
  string,
  timestamp,
} from '../common/openapi/schema';
import { STATS_WINDOWS } from './dto/stats-overview-query.dto';

const count = { type: 'integer', minimum: 0 };

/** The spec's stats overview (stats.service.ts); percentiles are null when no run started. */
export const STATS_OVERVIEW_SCHEMA = named(
  'StatsOverview',
  object({
    window: enumOf(STATS_WINDOWS),
    jobs: object({ active: count, paused: count, disabled: count, completed: count }),
    runs: object({ total: count, succeeded: count, failed: count, sla_breached: count }),
    start_lag_ms: object({ p50: nullable(number), p95: nullable(number), p99: nullable(number) }),
    failing_jobs: arrayOf(object({ id: idOf('job'), name: string, consecutive_failures: integer })),
  }),
);

/** Runs per job and hour (StatsService.jobsHourly): whole UTC hours, oldest first, zero-filled. */
export const JOB_HOURLY_STATS_SCHEMA = named(
  'JobHourlyStats',
  object({
    data: arrayOf(
      object({
        job_id: idOf('job'),
        buckets: arrayOf(object({ hour: timestamp, succeeded: count, failed: count, skipped: count, other: count })),
      }),
    ),
  }),
);
