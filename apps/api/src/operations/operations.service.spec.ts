import type { OperationWorkflowGateway } from '@svc/orchestration';
import { authFor, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import type { BulkJobsDto, RecoverRunsDto } from './dto/operations.dto';
import { OperationsService } from './operations.service';

/**
 * OperationsService over the in-memory kit with a recording workflow gateway: what a bulk action
 * or recover matches (exact sink host, the workspace's own jobs and runs only), dry runs, the
 * operation recorded with its items and its workflow started (or removed again: 503), the audit
 * entries, and cancel's rules.
 */
describe('OperationsService', () => {
  const auth = authFor();
  let started: Array<{ operationId: string; workspaceId: string; resumeAt: string | null }>;
  let cancelled: string[];
  let gatewayDown: boolean;
  const kit = serviceOverKit((db) => {
    started = [];
    cancelled = [];
    gatewayDown = false;
    const gateway = {
      start: async (input: { operationId: string; workspaceId: string; resumeAt: string | null }) => {
        if (gatewayDown) {
          throw new Error('temporal unavailable');
        }
        started.push(input);
      },
      cancel: async (id: string) => {
        if (gatewayDown) {
          throw new Error('temporal unavailable');
        }
        cancelled.push(id);
      },
    };
    const { jobs, runs, operations, audit } = db.repositories;
    return new OperationsService(jobs, runs, operations, audit, gateway as unknown as OperationWorkflowGateway);
  });

  const hook = (url: string) => ({ sinkKind: 'webhook', sinkConfig: { url } });
  const bulk = (extra: Partial<BulkJobsDto>) => ({ action: 'pause', filter: {}, ...extra }) as BulkJobsDto;

  describe('bulkJobs', () => {
    it('should match by tag and exact sink host, record the operation with its items, start it and audit it', async () => {
      const a = kit.db.addJob('active', { tags: ['billing'], ...hook('https://hooks.example.com/a') });
      kit.db.addJob('active', { tags: ['billing'], ...hook('https://hooks.example.com.evil.test/b') });
      kit.db.addJob('active', { tags: ['other'], ...hook('https://hooks.example.com/c') });
      kit.db.addJob('active', {
        workspaceId: OTHER_WORKSPACE,
        tags: ['billing'],
        ...hook('https://hooks.example.com/d'),
      });
      const operation = await kit.service.bulkJobs(
        auth,
        bulk({ filter: { tags: ['billing'], sink_host: 'hooks.example.com' }, note: 'CHG-1' }),
      );
      expect(operation).toMatchObject({
        kind: 'jobs.bulk',
        action: 'pause',
        status: 'running',
        matched: 1,
        pending: 1,
      });
      expect(kit.db.operations.itemsOf((operation as { id: string }).id).map((item) => item.targetId)).toEqual([a.id]);
      expect(started).toEqual([
        { operationId: (operation as { id: string }).id, workspaceId: auth.workspaceId, resumeAt: null },
      ]);
      expect(kit.db.audited()).toEqual([
        {
          actor: auth.actor,
          action: 'jobs.bulk',
          target: (operation as { id: string }).id,
          details: { action: 'pause', matched: 1, note: 'CHG-1' },
        },
      ]);
    });

    it('should answer a dry run with the matched jobs and record nothing', async () => {
      const a = kit.db.addJob('paused', { tags: ['t'] });
      const answer = await kit.service.bulkJobs(
        auth,
        bulk({ action: 'resume', filter: { tags: ['t'] }, dry_run: true }),
      );
      expect(answer).toEqual({
        dry_run: true,
        action: 'resume',
        matched: 1,
        jobs: [{ id: a.id, name: a.name, state: 'paused' }],
      });
      expect(kit.db.table('operations').size).toBe(0);
      expect(started).toEqual([]);
      expect(kit.db.tables.audit).toEqual([]);
    });

    it('should refuse an empty filter without all: true, and all beside a filter (400)', async () => {
      await expect(kit.service.bulkJobs(auth, bulk({}))).rejects.toMatchObject({
        status: 400,
        body: { fields: { filter: expect.any(String) } },
      });
      await expect(kit.service.bulkJobs(auth, bulk({ all: true, filter: { tags: ['x'] } }))).rejects.toMatchObject({
        status: 400,
        body: { fields: { all: expect.any(String) } },
      });
      expect(kit.db.table('operations').size).toBe(0);
    });

    it('should remove the operation again when its workflow cannot be started (503), auditing nothing', async () => {
      kit.db.addJob('active');
      gatewayDown = true;
      await expect(kit.service.bulkJobs(auth, bulk({ all: true }))).rejects.toMatchObject({
        status: 503,
        body: { code: 'unavailable' },
      });
      expect(kit.db.table('operations').size).toBe(0);
      expect(kit.db.tables.audit).toEqual([]);
    });

    it("should match none of another workspace's jobs, even by id", async () => {
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      const answer = await kit.service.bulkJobs(auth, bulk({ filter: { ids: [theirs.id] }, dry_run: true }));
      expect(answer).toMatchObject({ matched: 0, jobs: [] });
    });
  });

  describe('recover', () => {
    it('should retry the failed runs of existing jobs that have no manual retry yet, oldest first, up to max', async () => {
      const job = kit.db.addJob('active', hook('https://hooks.example.com/x'));
      const at = (h: number) => new Date(Date.UTC(2026, 10, 1, h));
      kit.db.addRun({ id: 'run_b', jobId: job.id, status: 'failed', scheduledAt: at(2) });
      kit.db.addRun({ id: 'run_a', jobId: job.id, status: 'failed', scheduledAt: at(1) });
      kit.db.addRun({ id: 'run_ok', jobId: job.id, status: 'succeeded', scheduledAt: at(3) });
      kit.db.addRun({ id: 'run_retried', jobId: job.id, status: 'failed', scheduledAt: at(4) });
      kit.db.addRun({ id: 'run_retry', jobId: job.id, status: 'running', trigger: 'retry_manual', scheduledAt: at(4) });
      kit.db.addRun({ id: 'run_gone', jobId: 'job_deleted', status: 'failed', scheduledAt: at(5) });
      kit.db.addRun({
        id: 'run_theirs',
        jobId: job.id,
        status: 'failed',
        scheduledAt: at(6),
        workspaceId: OTHER_WORKSPACE,
      });
      const dry = await kit.service.recover(auth, {
        filter: { sink_host: 'hooks.example.com' },
        dry_run: true,
      } as RecoverRunsDto);
      expect(dry).toMatchObject({ dry_run: true, action: 'retry', matched: 2 });
      expect((dry as { runs: Array<{ id: string }> }).runs.map((r) => r.id)).toEqual(['run_a', 'run_b']);
      const operation = (await kit.service.recover(auth, { filter: {}, max: 1 } as RecoverRunsDto)) as { id: string };
      expect(operation).toMatchObject({ kind: 'runs.recover', action: 'retry', matched: 1, filter: { max: 1 } });
      expect(kit.db.operations.itemsOf(operation.id).map((item) => item.targetId)).toEqual(['run_a']);
      expect(kit.db.audited()[0]).toMatchObject({ action: 'runs.recover', details: { action: 'retry', matched: 1 } });
    });

    it('should refuse a window whose end is not after its start (400 naming filter.to)', async () => {
      const dto = { filter: { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' } } as RecoverRunsDto;
      await expect(kit.service.recover(auth, dto)).rejects.toMatchObject({
        status: 400,
        body: { fields: { 'filter.to': 'must be after `from`' } },
      });
    });
  });

  describe('get and cancel', () => {
    it('should record a cancel, signal the workflow and audit it; an ended operation is 409', async () => {
      kit.db.addJob('active');
      const { id } = (await kit.service.bulkJobs(auth, bulk({ all: true }))) as { id: string };
      const answer = await kit.service.cancel(auth, id);
      expect(answer.cancel_requested_at).not.toBeNull();
      expect(cancelled).toEqual([id]);
      expect(kit.db.audited()[1]).toEqual({
        actor: auth.actor,
        action: 'operation.cancel',
        target: id,
        details: { kind: 'jobs.bulk', action: 'pause' },
      });
      kit.db.table<{ status: string }>('operations').get(id)!.status = 'succeeded';
      await expect(kit.service.cancel(auth, id)).rejects.toMatchObject({
        status: 409,
        body: { message: expect.stringContaining('has ended (succeeded)') },
      });
    });

    it('should answer 503 when the cancel cannot be signalled (it stays recorded), auditing nothing', async () => {
      kit.db.addJob('active');
      const { id } = (await kit.service.bulkJobs(auth, bulk({ all: true }))) as { id: string };
      gatewayDown = true;
      await expect(kit.service.cancel(auth, id)).rejects.toMatchObject({ status: 503 });
      expect(kit.db.table<{ cancelRequestedAt: Date | null }>('operations').get(id)!.cancelRequestedAt).not.toBeNull();
      expect(kit.db.audited().map((entry) => entry.action)).toEqual(['jobs.bulk']);
    });

    it("should not find another workspace's operation (404), nor cancel it", async () => {
      kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      const { id } = (await kit.service.bulkJobs(authFor(OTHER_WORKSPACE), bulk({ all: true }))) as { id: string };
      const notFound = { status: 404, body: { code: 'not_found', message: 'Operation not found' } };
      await expect(kit.service.get(auth, id)).rejects.toMatchObject(notFound);
      await expect(kit.service.cancel(auth, id)).rejects.toMatchObject(notFound);
      expect(cancelled).toEqual([]);
    });
  });
});
