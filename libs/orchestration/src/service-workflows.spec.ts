import { buildConfig } from '@svc/common';
import { alertEventId } from '@svc/common/alert-events';
import { ID_PREFIXES, newId, occurrenceRunId } from '@svc/common/ids';
import { workflowIdRefusal } from '@svc/delivery';
import * as registered from '@svc/workflows';
import { serviceWorkflows } from './service-workflows';

describe('serviceWorkflows', () => {
  const config = buildConfig({ temporal: { task_queue: 'sched' } }, {});
  const service = serviceWorkflows(config);

  it('names every task queue the workers poll, from the configured one', () => {
    expect(service.taskQueues).toEqual(['sched', 'sched-runs', 'sched-alerts', 'sched-parked']);
  });

  it('names every workflow type the worker registers, whatever the workflows module exports next', () => {
    for (const name of Object.keys(registered)) {
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
