import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { tolerating } from './tolerated-temporal-errors';

describe('tolerating', () => {
  it('should resolve when the call answers with the tolerated error', async () => {
    const gone = new WorkflowNotFoundError('gone', 'wf', undefined);
    await expect(tolerating(WorkflowNotFoundError, () => Promise.reject(gone))).resolves.toBeUndefined();
  });

  it('should pass on every other error, even another tolerable one', async () => {
    const started = new WorkflowExecutionAlreadyStartedError('started', 'wf', 'type');
    await expect(tolerating(WorkflowNotFoundError, () => Promise.reject(started))).rejects.toBe(started);
    const down = new Error('unavailable');
    await expect(tolerating(WorkflowExecutionAlreadyStartedError, () => Promise.reject(down))).rejects.toBe(down);
  });

  it('should resolve when the call succeeds', async () => {
    let called = 0;
    await tolerating(WorkflowNotFoundError, async () => {
      called += 1;
    });
    expect(called).toBe(1);
  });
});
