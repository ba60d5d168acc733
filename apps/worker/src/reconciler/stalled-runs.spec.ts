import type { RunEntity } from '@svc/persistence';
import { decideStalledRun } from './stalled-runs';

const createdAt = new Date('2026-11-26T10:00:00Z');
function row(overrides: Partial<RunEntity> = {}): RunEntity {
  return { status: 'running', attemptsCount: 0, nextAttemptAt: null, createdAt, ...overrides } as RunEntity;
}
const before = new Date(createdAt.getTime() - 1_000);
const after = new Date(createdAt.getTime() + 1_000);

describe('decideStalledRun', () => {
  it('should start a run whose workflow never started', () => {
    expect(decideStalledRun(row(), true, { kind: 'missing' })).toEqual({ kind: 'start' });
  });

  it('should start a run whose only workflow ended before the row was written (withdrawn, then reopened)', () => {
    expect(decideStalledRun(row(), true, { kind: 'closed', status: 'COMPLETED', closedAt: before })).toEqual({
      kind: 'start',
    });
  });

  it('should close a run whose workflow ended after it without recording an outcome', () => {
    expect(decideStalledRun(row(), true, { kind: 'closed', status: 'TERMINATED', closedAt: after })).toEqual({
      kind: 'close',
      status: 'failed',
      error: 'run workflow ended (terminated) without recording an outcome',
    });
    expect(decideStalledRun(row(), true, { kind: 'closed', status: 'CANCELLED', closedAt: after })).toMatchObject({
      kind: 'close',
      status: 'cancelled',
    });
  });

  it('should cancel a run of a deleted job unless its workflow is still running', () => {
    for (const workflow of [
      { kind: 'missing' } as const,
      { kind: 'closed', status: 'COMPLETED', closedAt: after } as const,
    ]) {
      expect(decideStalledRun(row(), false, workflow)).toMatchObject({ kind: 'close', status: 'cancelled' });
    }
    expect(decideStalledRun(row(), false, { kind: 'running' })).toEqual({ kind: 'leave' });
  });

  it('should leave running workflows and queued occurrences of live jobs alone', () => {
    expect(decideStalledRun(row(), true, { kind: 'running' })).toEqual({ kind: 'leave' });
    expect(decideStalledRun(row({ status: 'deferred' }), true, { kind: 'missing' })).toEqual({ kind: 'leave' });
  });

  it('should start a run waiting for a retry whose workflow is gone', () => {
    const retrying = row({ status: 'deferred', attemptsCount: 1, nextAttemptAt: before });
    expect(decideStalledRun(retrying, true, { kind: 'missing' })).toEqual({ kind: 'start' });
  });
});
