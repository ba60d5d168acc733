import { authFor, lifecycleOver, OTHER_WORKSPACE, serviceOverKit, settle } from '../../../../test/kit';
import type { RunOverridesValidator } from '../jobs/run-overrides.validator';
import { RunCancelService, RunRetryService } from './run-retry.service';

/**
 * RunRetryService and RunCancelService over the real JobLifecycle on the in-memory kit: one retry
 * per occurrence, only of a failed run, with the caller's overrides validated against the job.
 */
describe('RunRetryService', () => {
  const auth = authFor();
  let overrides: { validate: jest.Mock };
  const kit = serviceOverKit((db, temporal) => {
    overrides = { validate: jest.fn(async () => null) };
    const lifecycle = lifecycleOver(db, temporal);
    return new RunRetryService(db.repositories.runs, lifecycle, overrides as unknown as RunOverridesValidator);
  });

  it('should open a manual retry of a failed run, start its workflow and audit it', async () => {
    const job = kit.db.addJob('active');
    const failed = kit.db.addRun({ id: 'run_failed', jobId: job.id, status: 'failed' });
    const retry = await kit.service.retry(auth, failed.id, { body: 'x' });
    expect(retry).toMatchObject({ job_id: job.id, trigger: 'retry_manual', status: 'running', retry_of: failed.id });
    expect(retry.attempts).toEqual([]);
    expect(overrides.validate).toHaveBeenCalledWith(expect.objectContaining({ id: job.id }), { body: 'x' });
    expect(kit.temporal.started.map((input) => input.runId)).toEqual([retry.id]);
    expect(kit.db.audited().map((entry) => entry.action)).toContain('run.retry');
  });

  it('should answer the same retry for the same occurrence (one per occurrence)', async () => {
    const job = kit.db.addJob('active');
    const failed = kit.db.addRun({ id: 'run_failed', jobId: job.id, status: 'failed' });
    const first = await kit.service.retry(auth, failed.id);
    const second = await kit.service.retry(auth, failed.id);
    expect(second.id).toBe(first.id);
    expect([...kit.db.tables.runs.values()].filter((r) => r.trigger === 'retry_manual')).toHaveLength(1);
  });

  it('should refuse a run that did not fail (409 conflict) and open nothing', async () => {
    const job = kit.db.addJob('active');
    const ok = kit.db.addRun({ id: 'run_ok', jobId: job.id, status: 'succeeded' });
    await expect(kit.service.retry(auth, ok.id)).rejects.toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect(kit.db.tables.runs.size).toBe(1);
    expect(kit.temporal.started).toEqual([]);
  });

  it('should refuse the retry when the overrides are refused, and open nothing', async () => {
    const job = kit.db.addJob('active');
    kit.db.addRun({ id: 'run_failed', jobId: job.id, status: 'failed' });
    overrides.validate.mockRejectedValue(new Error('bad override'));
    await expect(kit.service.retry(auth, 'run_failed', { url: 'nope' })).rejects.toThrow('bad override');
    expect(kit.db.tables.runs.size).toBe(1);
  });

  it("should not find another workspace's run (404 not_found)", async () => {
    const job = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
    kit.db.addRun({ id: 'run_theirs', jobId: job.id, status: 'failed', workspaceId: OTHER_WORKSPACE });
    await expect(kit.service.retry(auth, 'run_theirs')).rejects.toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
    expect(kit.temporal.started).toEqual([]);
  });
});

describe('RunCancelService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db, temporal) => new RunCancelService(db.repositories.runs, lifecycleOver(db, temporal)));

  it('should cancel an open run: its workflow told, its row closed as cancelled', async () => {
    const job = kit.db.addJob('active');
    kit.db.addRun({ id: 'run_open', jobId: job.id, status: 'running' });
    const cancelled = await kit.service.cancel(auth, 'run_open');
    await settle();
    expect(cancelled).toMatchObject({ id: 'run_open', status: 'cancelled', attempts: [] });
    expect(kit.temporal.cancelled).toEqual(['run_open']);
    expect(kit.db.audited().map((entry) => entry.action)).toEqual(['run.cancel']);
  });

  it("should not find another workspace's run (404 not_found)", async () => {
    kit.db.addRun({ id: 'run_theirs', jobId: 'job_x', workspaceId: OTHER_WORKSPACE });
    await expect(kit.service.cancel(auth, 'run_theirs')).rejects.toMatchObject({ status: 404 });
    expect(kit.temporal.cancelled).toEqual([]);
  });
});
