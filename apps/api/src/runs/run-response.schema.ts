import { ATTEMPT_OUTCOMES, DEFERRED_REASONS, RUN_STATUSES, RUN_TRIGGERS, SKIP_REASONS } from '@svc/persistence';
import { STUCK_REASONS } from '@svc/orchestration';
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

/** The workflow a `temporal_workflow` sink started (docs/extending.md), or null. */
const STARTED_WORKFLOW = {
  ...nullable(
    named(
      'StartedWorkflow',
      object({
        namespace: string,
        workflow_id: string,
        run_id: string,
        ui_url: { ...nullable(string), description: 'Its page in the Temporal UI (`temporal.ui_url`), if configured.' },
      }),
    ),
  ),
  description: 'The workflow a `temporal_workflow` sink started or attached to; null for other sinks.',
};

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
    started_workflow: STARTED_WORKFLOW,
  }),
);

/** Why a run is listed by `?stuck=true`, and what Temporal says it waits on. */
export const STUCK_SCHEMA = named(
  'StuckRun',
  object({
    reasons: {
      ...arrayOf(enumOf(STUCK_REASONS)),
      description:
        '`past_retry_budget`: open past `deadline`; `no_heartbeat`: the attempt showed no life for longer than the heartbeat timeout.',
    },
    explanation: string,
    deadline: {
      ...timestamp,
      description: 'By when the run should have ended: timeout × max_attempts + backoff + margin.',
    },
    silent_for_ms: { ...nullable(integer), description: 'How long the attempt has shown no life (`no_heartbeat`).' },
    temporal: object({
      namespace: string,
      workflow_id: string,
      ui_url: {
        ...nullable(string),
        description: 'The run workflow in the Temporal Web UI, when `temporal.ui_url` is set.',
      },
      describe_command: { ...string, description: 'The `temporal workflow describe` command that shows the same.' },
      pending_activity: nullable(
        object({
          activity_type: string,
          state: { ...string, description: '`scheduled`, `started`, `cancel_requested`, `paused`…' },
          attempt: { ...integer, description: "Temporal's attempt counter of the activity (1-based)." },
          scheduled_at: {
            ...nullable(timestamp),
            description: 'When the current attempt was, or the next will be, scheduled.',
          },
          last_started_at: nullable(timestamp),
          last_heartbeat_at: nullable(timestamp),
          last_failure: nullable(string),
        }),
      ),
    }),
  }),
);

const runFields = {
  id: idOf('run'),
  job_id: idOf('job'),
  job_version: integer,
  scheduled_at: timestamp,
  planned_at: {
    ...timestamp,
    description:
      'When the run was planned to fire: `scheduled_at` plus its job’s `start_offset_ms` (a start window); ' +
      '`scheduled_at` itself without one. Lateness and `start_lag_ms` are measured from it.',
  },
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
  started_workflow: STARTED_WORKFLOW,
  overrides: {
    ...nullable({ type: 'object', additionalProperties: true }),
    description:
      'The per-run overrides of the job’s sink this run was opened with (a trigger’s, retry’s or backfill’s `overrides`), or null.',
  },
  skip_reason: { ...enumOf(SKIP_REASONS), description: 'On skipped runs only.' },
  skip_note: {
    ...string,
    description: 'On runs of an occurrence a user skipped (`skip_reason: occurrence_skipped`): the skip’s note.',
  },
  retry_of: {
    ...idOf('run'),
    description:
      'On manual retries: the failed run they retry; on a backfill’s re-run of an occurrence, the run it re-runs.',
  },
  backfill_id: { ...idOf('bf'), description: 'On runs a backfill opened (`trigger: backfill`): the backfill.' },
  deferred_reason: {
    ...enumOf(DEFERRED_REASONS),
    description:
      'On `deferred` runs that wait for their destination (issue 46) rather than for a retry: `destination_limit` ' +
      '(its `max_in_flight` or `per_minute` is reached) or `destination_held` (a `Retry-After` holds it). ' +
      'The wait spends no attempt; `next_attempt_at` says when it tries again.',
  },
  deferred_destination: { ...string, description: 'With `deferred_reason`: the destination the run waits for.' },
};
const optional = ['skip_reason', 'skip_note', 'retry_of', 'backfill_id', 'deferred_reason', 'deferred_destination'];

/** A run in lists: `attempts` is a count. */
export const RUN_SUMMARY_SCHEMA = named(
  'RunSummary',
  object(
    {
      ...runFields,
      attempts: { type: 'integer', minimum: 0, description: 'Number of attempts.' },
      stuck: STUCK_SCHEMA,
    },
    [...optional, 'stuck'],
  ),
);

/** A run on its own (`GET /runs/{id}`, retry): `attempts` is the array of attempts. */
export const RUN_SCHEMA = named('Run', object({ ...runFields, attempts: arrayOf(ATTEMPT_SCHEMA) }, optional));

export const RUN_PAGE_SCHEMA = pageOf('RunPage', RUN_SUMMARY_SCHEMA);
