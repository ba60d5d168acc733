import { BACKFILL_MODES, BACKFILL_STATUSES } from '@svc/persistence';
import {
  anyObject,
  boolean,
  enumOf,
  idOf,
  integer,
  named,
  nullable,
  object,
  string,
  timestamp,
} from '../common/openapi/schema';

/** `202` of a backfill (`200` for a dry run): how many occurrences, the first and the last. */
export const BACKFILL_ACCEPTED_SCHEMA = named(
  'BackfillAccepted',
  object({
    backfill_id: { ...nullable(idOf('bf')), description: 'The backfill (`GET /backfills/{id}`); null on a dry run.' },
    dry_run: boolean,
    occurrences: {
      ...integer,
      description: 'Occurrences in the range, in the job’s time zone (skipped ones left out).',
    },
    first: nullable(timestamp),
    last: nullable(timestamp),
  }),
);

/** A backfill, as `toBackfillResponse` (backfills.mapper.ts) builds it. */
export const BACKFILL_SCHEMA = named(
  'Backfill',
  object({
    id: idOf('bf'),
    job_id: idOf('job'),
    status: {
      ...enumOf(BACKFILL_STATUSES),
      description:
        '`running` until every occurrence was started or skipped and its runs ended; then `completed` or `cancelled`.',
    },
    mode: enumOf(BACKFILL_MODES),
    max_runs: { ...integer, description: 'Runs at once (1 in `sequential` mode).' },
    skip_succeeded: boolean,
    from: timestamp,
    to: timestamp,
    first: nullable(timestamp),
    last: nullable(timestamp),
    overrides: { ...nullable(anyObject), description: 'The per-run overrides every run carries, or null.' },
    counts: {
      ...object({
        total: integer,
        pending: integer,
        started: integer,
        running: integer,
        succeeded: integer,
        failed: integer,
        skipped_succeeded: integer,
        canceled: integer,
      }),
      description:
        'Occurrences: `total` = `pending` + `started` + `skipped_succeeded` (a run of it had succeeded) + `canceled` ' +
        '(not started when the backfill was cancelled); of the started ones, `running`, `succeeded` and `failed` ' +
        '(failed, cancelled or skipped) by their run.',
    },
    created_by: string,
    created_at: timestamp,
    updated_at: timestamp,
    cancel_requested_at: nullable(timestamp),
    finished_at: nullable(timestamp),
  }),
);
