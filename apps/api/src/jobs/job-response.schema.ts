import { ATTEMPT_OUTCOMES, JOB_STATES, RUN_STATUSES } from '@svc/persistence';
import { SCHEDULE_KINDS } from '@svc/schedule';
import {
  anyObject,
  boolean,
  arrayOf,
  enumOf,
  idOf,
  integer,
  named,
  nullable,
  number,
  object,
  pageOf,
  string,
  timestamp,
} from '../common/openapi/schema';
import { OCCURRENCE_SKIP_SCHEMA } from './occurrence-skips/occurrence-skips.schema';
import { BACKOFFS, JOB_KEY_MAX_LENGTH, JOB_KEY_PATTERN, MISFIRE_POLICIES, OVERLAP_POLICIES } from './dto/job-body.dto';

const duration = { type: 'string', description: 'Normalized duration, e.g. `30s`, `1h30m`' };

/** The spec's job object, as `toJobResponse` (jobs.mapper.ts) builds it. */
export const JOB_SCHEMA = named(
  'Job',
  object(
    {
      id: idOf('job'),
      key: {
        ...nullable({ type: 'string', pattern: JOB_KEY_PATTERN.source, maxLength: JOB_KEY_MAX_LENGTH }),
        description: 'The job’s stable name in its workspace (`PUT /jobs/by-key/{key}`, apply); null when it has none.',
      },
      managed_by: {
        ...nullable(string),
        description:
          'Who declares the job (`POST /jobs/apply`’s `managed_by`); null for jobs made by hand. Edits by hand are ' +
          'overwritten by the owner’s next apply.',
      },
      name: string,
      description: string,
      tags: arrayOf(string),
      schedule: object({
        expr: string,
        kind: enumOf(SCHEDULE_KINDS),
        canonical: string,
        description: string,
        timezone: string,
        starts_at: nullable(timestamp),
        ends_at: nullable(timestamp),
        count: nullable(integer),
        exclude_calendars: {
          ...arrayOf(string),
          description: 'Workspace calendars whose days have no occurrence (`/api/v1/calendars`).',
        },
      }),
      // Each registered kind's exact shape replaces this in the document (openapi/sink-kinds.ts).
      sink: object({ kind: string, config: anyObject }),
      retry: object({
        max_attempts: integer,
        backoff: enumOf(BACKOFFS),
        initial_interval: duration,
        max_interval: duration,
        multiplier: number,
        jitter: number,
      }),
      timeout: duration,
      sla_threshold: nullable(duration),
      misfire_policy: enumOf(MISFIRE_POLICIES),
      overlap_policy: enumOf(OVERLAP_POLICIES),
      auto_disable_threshold: nullable(integer),
      start_window: {
        ...nullable(duration),
        description: 'Spread window: each occurrence fires `start_offset_ms` after its nominal time. null: none.',
      },
      start_offset_ms: {
        type: 'integer',
        minimum: 0,
        description: 'The job’s fixed offset in `[0, start_window)`, derived from its id; 0 without a window.',
      },
      max_concurrent_runs: {
        ...nullable({ type: 'integer', minimum: 1 }),
        description: 'Runs in flight at most under `overlap_policy: allow`; null: unbounded (1 under the others).',
      },
      state: enumOf(JOB_STATES),
      disabled_reason: nullable(string),
      paused_note: {
        ...nullable(string),
        description: 'Why the job is paused: the `note` of the bulk pause that paused it; null otherwise.',
      },
      resume_at: {
        ...nullable(timestamp),
        description:
          'When the maintenance window of the bulk pause that paused the job resumes it (`POST /jobs/bulk` with ' +
          '`resume_at`); null otherwise. Cleared whenever the job leaves `paused`.',
      },
      consecutive_failures: integer,
      next_run_at: nullable(timestamp),
      next_runs: {
        ...arrayOf(timestamp),
        description:
          'Only on the single-job GET. Skipped occurrences stay listed: `skipped_occurrences` says which are skipped.',
      },
      skipped_occurrences: {
        ...arrayOf(OCCURRENCE_SKIP_SCHEMA),
        description:
          'Only on the single-job GET: the upcoming occurrences skipped with `POST /jobs/{id}/occurrences/{at}/skip`, ' +
          'soonest first. Their runs are recorded `skipped` (`occurrence_skipped`) with the note; nothing is delivered.',
      },
      next_occurrences: {
        ...arrayOf(object({ scheduled_at: timestamp, planned_at: timestamp })),
        description:
          'Only on the single-job GET: `next_runs` with the time each is planned to fire (`scheduled_at` + ' +
          '`start_offset_ms`).',
      },
      stats_24h: {
        ...object({
          runs: integer,
          succeeded: integer,
          failed: integer,
          sla_breached: integer,
          p95_start_lag_ms: nullable(number),
        }),
        description: 'Only on the single-job GET.',
      },
      last_run_at: nullable(timestamp),
      last_run_status: nullable(enumOf(RUN_STATUSES)),
      latest_run: {
        ...nullable(
          object({
            id: idOf('run'),
            status: enumOf(RUN_STATUSES),
            trigger: string,
            scheduled_at: timestamp,
            started_at: nullable(timestamp),
            attempts_count: integer,
            max_attempts: integer,
            next_attempt_at: nullable(timestamp),
            sla_breached: boolean,
          }),
        ),
        description:
          'Only in the list (`GET /jobs`): the job’s open run (running or deferred) if it has one, else its newest; ' +
          '`attempts_count` attempts made of `max_attempts`, `next_attempt_at` when a deferred run tries again, ' +
          '`sla_breached` also for an open run already past the SLA threshold. null: no run yet.',
      },
      version: integer,
      created_at: timestamp,
      updated_at: timestamp,
      signing_secret: {
        type: 'string',
        pattern: '^whsec_',
        description:
          'Webhook jobs only, and only in the create and rotate responses and in the PATCH response that changes ' +
          '`sink.kind` to `webhook`: shown this once.',
      },
    },
    ['next_runs', 'skipped_occurrences', 'next_occurrences', 'stats_24h', 'signing_secret', 'latest_run'],
  ),
);

export const JOB_PAGE_SCHEMA = pageOf('JobPage', JOB_SCHEMA);

/** `202` of `POST /jobs/{id}/trigger`: the run it created (readable at once). */
export const TRIGGER_ACCEPTED_SCHEMA = named('TriggerAccepted', object({ run_id: idOf('run') }));

/** `200` of `POST /jobs/{id}/test` and `POST /jobs/test`: one real attempt, recorded nowhere. */
export const SINK_TEST_RESULT_SCHEMA = named(
  'SinkTestResult',
  object({
    outcome: enumOf(ATTEMPT_OUTCOMES),
    status_code: nullable(integer),
    duration_ms: { type: 'integer', minimum: 0 },
    response_body: nullable(string),
    request_summary: string,
    error: nullable(string),
  }),
);

/** `200` of `POST /jobs/apply` (issue 42): what the apply did, or would do on a dry run. */
export const APPLY_PLAN_SCHEMA = named(
  'ApplyPlan',
  object({
    managed_by: nullable(string),
    dry_run: { type: 'boolean' },
    created: { ...arrayOf(string), description: 'Keys of the jobs created (on a dry run: to be created).' },
    updated: {
      ...arrayOf(
        object({
          key: string,
          changes: { ...arrayOf(string), description: 'Field paths that change, e.g. `schedule.expr`.' },
        }),
      ),
      description: 'Jobs whose declaration differs from the stored job: a new version each.',
    },
    unchanged: { ...arrayOf(string), description: 'Keys already as declared: nothing written.' },
    deleted: { ...arrayOf(string), description: 'With `prune`: jobs of `managed_by` the set no longer names.' },
    kept: {
      ...arrayOf(object({ key: string, reason: enumOf(['paused', 'disabled'] as const) })),
      description: 'Jobs of the set whose state an operator set by hand: an apply never resumes or enables them.',
    },
    ids: {
      type: 'object',
      additionalProperties: idOf('job'),
      description: 'Key → job id of every job the plan names (a dry run has none yet for `created`).',
    },
  }),
);
