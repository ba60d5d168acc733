import { ATTEMPT_OUTCOMES, RUN_STATUSES, RUN_TRIGGERS, SKIP_REASONS } from '@svc/persistence';
import {
  arrayOf,
  boolean,
  enumOf,
  idOf,
  integer,
  named,
  nullable,
  object,
  pageOf,
  string,
  timestamp,
} from '../common/openapi/schema';

/** One attempt, as `toAttemptResponse` (runs.mapper.ts) builds it. */
export const ATTEMPT_SCHEMA = named(
  'Attempt',
  object({
    n: { type: 'integer', minimum: 0, description: '0 for the first attempt.' },
    started_at: timestamp,
    finished_at: nullable(timestamp),
    duration_ms: nullable(integer),
    outcome: nullable(enumOf(ATTEMPT_OUTCOMES)),
    status_code: nullable(integer),
    error: nullable(string),
    request_summary: string,
    response_body: nullable(string),
  }),
);

const runFields = {
  id: idOf('run'),
  job_id: idOf('job'),
  job_version: integer,
  scheduled_at: timestamp,
  trigger: enumOf(RUN_TRIGGERS),
  status: enumOf(RUN_STATUSES),
  claimed_at: nullable(timestamp),
  started_at: nullable(timestamp),
  finished_at: nullable(timestamp),
  next_attempt_at: nullable(timestamp),
  start_lag_ms: nullable(integer),
  e2e_ms: nullable(integer),
  sla_breached: boolean,
  last_error: nullable(string),
  skip_reason: { ...enumOf(SKIP_REASONS), description: 'On skipped runs only.' },
  retry_of: { ...idOf('run'), description: 'On manual retries: the failed run they retry.' },
};
const optional = ['skip_reason', 'retry_of'];

/** A run in lists: `attempts` is a count. */
export const RUN_SUMMARY_SCHEMA = named(
  'RunSummary',
  object({ ...runFields, attempts: { type: 'integer', minimum: 0, description: 'Number of attempts.' } }, optional),
);

/** A run on its own (`GET /runs/{id}`, retry): `attempts` is the array of attempts. */
export const RUN_SCHEMA = named('Run', object({ ...runFields, attempts: arrayOf(ATTEMPT_SCHEMA) }, optional));

export const RUN_PAGE_SCHEMA = pageOf('RunPage', RUN_SUMMARY_SCHEMA);
