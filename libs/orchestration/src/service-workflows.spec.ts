import { buildConfig } from '@svc/common';
import { alertEventId } from '@svc/common/alert-events';
import { ID_PREFIXES, newId, occurrenceRunId } from '@svc/workflow-contract/ids';
import { workflowIdRefusal } from '@svc/delivery';
import { REGISTERED_WORKFLOW_TYPES } from '@svc/workflow-contract/definitions';
import { serviceWorkflows } from './service-workflows';

describe('serviceWorkflows', () => {
  const config = buildConfig({ temporal: { task_queue: 'sched' } }, {});
  const service = serviceWorkflows(config);

  it('names every task queue the workers poll, from the configured one', () => {
    expect(service.taskQueues).toEqual(['sched', 'sched-runs', 'sched-alerts', 'sched-parked']);
  });

  it('names every workflow type the worker registers (temporal/test/workflow-types.spec.ts holds the list)', () => {
    for (const name of REGISTERED_WORKFLOW_TYPES) {
      expect(service.workflowTypes).toContain(name);
    }
    expect(service.workflowTypes).toEqual(
      expect.arrayContaining([
        'jobWorkflow',
        'runWorkflow',
        'alertWorkflow',
        'channelVerificationWorkflow',
        'parkedJob',
      ]),
    );
  });

  it('covers every id the service gives its own executions', () => {
    const now = Date.now();
    const ids = [
      ...Object.keys(ID_PREFIXES).map((kind) => newId(kind as keyof typeof ID_PREFIXES, now)),
      occurrenceRunId(newId('job', now), now),
      alertEventId('run.failed', newId('run', now)),
      `verify-${newId('channel', now)}-abc`,
    ];
    for (const id of ids) {
      expect({ id, refused: workflowIdRefusal(id, service) !== null }).toEqual({ id, refused: true });
    }
    expect(workflowIdRefusal(`svc-${newId('workspace', now)}-${newId('run', now)}`, service)).toBeNull();
  });
});
