import { OPERATION_ACTIONS, OPERATION_KINDS, OPERATION_STATUSES } from '@svc/persistence';
import {
  anyObject,
  arrayOf,
  enumOf,
  idOf,
  integer,
  named,
  nullable,
  object,
  string,
  timestamp,
} from '../common/openapi/schema';
import { BULK_ACTIONS } from './dto/operations.dto';

/** A bulk action or recover, as `toOperationResponse` (operations.mapper.ts) builds it. */
export const OPERATION_SCHEMA = named(
  'Operation',
  object({
    id: idOf('op'),
    kind: enumOf(OPERATION_KINDS),
    action: enumOf(OPERATION_ACTIONS),
    status: {
      ...enumOf(OPERATION_STATUSES),
      description:
        '`running` while items are pending; `waiting` while a pause’s maintenance window lasts (its jobs are ' +
        'paused; they are resumed at `resume_at`); then `succeeded` (every item handled, refused ones included) ' +
        'or `cancelled`.',
    },
    note: nullable(string),
    resume_at: nullable(timestamp),
    filter: { ...anyObject, description: 'The request’s filter (with `all` and `max` when given).' },
    matched: { ...integer, description: 'Jobs or runs the filter matched when the operation was accepted.' },
    pending: integer,
    done: integer,
    failed: { ...integer, description: 'Items the action refused (`errors` says why).' },
    resumed: { ...integer, description: 'Jobs the end of the maintenance window resumed.' },
    errors: {
      ...arrayOf(object({ target_id: string, error: string })),
      description: 'The first 100 refused items (a job or run id) with the reason, in order.',
    },
    created_by: string,
    created_at: timestamp,
    updated_at: timestamp,
    cancel_requested_at: nullable(timestamp),
    finished_at: nullable(timestamp),
  }),
);

/** `200` of a bulk action's `dry_run`: the jobs it would act on. */
export const BULK_JOBS_DRY_RUN_SCHEMA = named(
  'BulkJobsDryRun',
  object({
    dry_run: { type: 'boolean', const: true },
    action: enumOf(BULK_ACTIONS),
    matched: integer,
    jobs: {
      ...arrayOf(object({ id: idOf('job'), name: string, state: string })),
      description: 'The first 1000 matched jobs, oldest first.',
    },
  }),
);

/** `200` of a recover's `dry_run`: the failed runs it would retry. */
export const RECOVER_DRY_RUN_SCHEMA = named(
  'RecoverDryRun',
  object({
    dry_run: { type: 'boolean', const: true },
    action: enumOf(['retry']),
    matched: integer,
    runs: {
      ...arrayOf(object({ id: idOf('run'), job_id: idOf('job'), scheduled_at: timestamp })),
      description: 'The first 1000 matched runs, oldest occurrence first.',
    },
  }),
);
