import type { AppConfig } from '@svc/common';
import { ID_PREFIXES } from '@svc/workflow-contract/ids';
import type { ServiceWorkflows } from '@svc/delivery';
import {
  alertsTaskQueue,
  parkedTaskQueue,
  REGISTERED_WORKFLOW_TYPES,
  runsTaskQueue,
} from '@svc/workflow-contract/definitions';

/** The id of a channel verification workflow starts with this (alert-workflow.gateway.ts). */
const VERIFY_WORKFLOW_ID_PREFIX = 'verify-';
/** Alert workflows are named after their event (`evt_…`, alert-events.ts). */
const ALERT_EVENT_ID_PREFIX = 'evt_';

/**
 * The service's own Temporal machinery, which no `temporal_workflow` job may reach
 * (docs/security.md → The temporal_workflow sink): the task queues its workers poll
 * (apps/worker queue-workers.ts: jobs, runs, alerts, parked), the workflow types they register
 * (`REGISTERED_WORKFLOW_TYPES`: the exports of temporal/workflows/index.ts; and `parkedJob`, the
 * name a parked job's code goes by), and the prefixes of the ids it gives executions (job and run workflows are named after
 * their `job_`/`run_` ids; every id kind is reserved, alert and verification workflows too).
 */
export function serviceWorkflows(config: AppConfig): ServiceWorkflows {
  const queue = config.temporal.task_queue;
  return {
    taskQueues: [queue, runsTaskQueue(queue), alertsTaskQueue(queue), parkedTaskQueue(queue)],
    workflowTypes: [...REGISTERED_WORKFLOW_TYPES, 'parkedJob'].sort(),
    workflowIdPrefixes: [
      ...Object.values(ID_PREFIXES).map((prefix) => `${prefix}_`),
      ALERT_EVENT_ID_PREFIX,
      VERIFY_WORKFLOW_ID_PREFIX,
    ],
  };
}
