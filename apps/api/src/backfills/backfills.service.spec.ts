import type { BackfillEntity, BackfillProgress, BackfillsRepository } from '@svc/persistence';
import type { BackfillWorkflowGateway } from '@svc/orchestration';
import {
  authFor,
  type InMemoryDatabase,
  jobsApiOver,
  kitConfig,
  OTHER_WORKSPACE,
  serviceOverKit,
} from '../../../../test/kit';
import { BackfillsService } from './backfills.service';
import type { BackfillDto } from './dto/backfill.dto';

/**
 * `BackfillsRepository` over a kit table: the backfill rows with the instants each was recorded
 * with, its progress all pending (the worker settles items; this service only reads the counts).
 */
function backfillsStore(db: InMemoryDatabase) {
  const rows = () => db.table<BackfillEntity>('backfills');
  const instants = () => db.table<Date[]>('backfill_items');
  const mine = (workspaceId: string, id: string) => {
    const row = rows().get(id);
    return row && row.workspaceId === workspaceId ? { ...row } : null;
  };
  return {
    instantsOf: (id: string) => instants().get(id) ?? [],
    create: async (backfill: BackfillEntity, at: Date[]) => {
      const now = new Date();
      rows().set(backfill.id, { ...backfill, createdAt: now, updatedAt: now } as BackfillEntity);
      instants().set(backfill.id, at);
    },
    delete: async (id: string) => {
      rows().delete(id);
      instants().delete(id);
    },
    getById: async (workspaceId: string, id: string) => mine(workspaceId, id),
    progress: async (id: string): Promise<BackfillProgress> => ({
      total: instants().get(id)?.length ?? 0,
      pending: instants().get(id)?.length ?? 0,
      started: 0,
      running: 0,
      succeeded: 0,
      failed: 0,
      skippedSucceeded: 0,
      canceled: 0,
    }),
    requestCancel: async (workspaceId: string, id: string, at: Date) => {
      const row = rows().get(id);
      if (!row || row.workspaceId !== workspaceId || row.status !== 'running') {
        return null;
      }
      row.cancelRequestedAt ??= at;
      return { ...row };
    },
  };
}

/**
 * BackfillsService over the in-memory kit with a recording workflow gateway: the range and the
 * occurrence cap as `400` with `fields`, a dry run that records nothing, the backfill recorded with
 * its occurrences and its workflow started (or removed again: `503`), the audit entries, another
 * workspace's job and backfill as `404`, and cancel's rules.
 */
describe('BackfillsService', () => {
  const auth = authFor();
  let store: ReturnType<typeof backfillsStore>;
  let started: Array<{ input: { backfillId: string; workspaceId: string; jobId: string }; summary: string }>;
  let cancelled: string[];
  let gatewayDown: boolean;
  const kit = serviceOverKit((db, temporal) => {
    store = backfillsStore(db);
    started = [];
    cancelled = [];
    gatewayDown = false;
    const gateway = {
      start: async (input: { backfillId: string; workspaceId: string; jobId: string }, summary: string) => {
        if (gatewayDown) {
          throw new Error('temporal unavailable');
        }
        started.push({ input, summary });
      },
      cancel: async (id: string) => {
        if (gatewayDown) {
          throw new Error('temporal unavailable');
        }
        cancelled.push(id);
      },
    };
    const config = kitConfig({ limits: { backfill_max_occurrences: 24 } });
    const { jobs, calendars, audit } = db.repositories;
    return new BackfillsService(
      jobs,
      store as unknown as BackfillsRepository,
      calendars,
      audit,
      jobsApiOver(db, temporal, config).overrides,
      gateway as unknown as BackfillWorkflowGateway,
      config,
    );
  });

  /** Four occurrences of the kit's job (hourly after its anchor, 2026-01-01T00:00Z): 01:00 to 04:00. */
  const range = (extra: Partial<BackfillDto> = {}) =>
    ({ from: '2026-01-01T00:00:00Z', to: '2026-01-01T05:00:00Z', ...extra }) as BackfillDto;

  describe('create', () => {
    it('should record the backfill with its occurrences, start its workflow and audit it', async () => {
      const job = kit.db.addJob('active');
      const answer = await kit.service.create(auth, job.id, range({ mode: 'parallel', max_runs: 3 }));
      expect(answer).toEqual({
        backfill_id: expect.stringMatching(/^bf_/),
        dry_run: false,
        occurrences: 4,
        first: '2026-01-01T01:00:00.000Z',
        last: '2026-01-01T04:00:00.000Z',
      });
      const id = answer.backfill_id!;
      expect(store.instantsOf(id).map((d) => d.toISOString())).toEqual([
        '2026-01-01T01:00:00.000Z',
        '2026-01-01T02:00:00.000Z',
        '2026-01-01T03:00:00.000Z',
        '2026-01-01T04:00:00.000Z',
      ]);
      expect(await kit.service.get(auth, id)).toMatchObject({
        id,
        job_id: job.id,
        status: 'running',
        mode: 'parallel',
        max_runs: 3,
        skip_succeeded: true,
        overrides: null,
        counts: { total: 4, pending: 4 },
        created_by: auth.actor,
      });
      expect(started.map((s) => s.input)).toEqual([{ backfillId: id, workspaceId: auth.workspaceId, jobId: job.id }]);
      expect(kit.db.audited()).toEqual([
        {
          actor: auth.actor,
          action: 'job.backfill',
          target: job.id,
          details: {
            backfill_id: id,
            from: '2026-01-01T00:00:00.000Z',
            to: '2026-01-01T05:00:00.000Z',
            occurrences: 4,
            mode: 'parallel',
            max_runs: 3,
            skip_succeeded: true,
          },
        },
      ]);
    });

    it('should run one at a time by default, whatever max_runs says', async () => {
      const job = kit.db.addJob('active');
      const answer = await kit.service.create(auth, job.id, range({ max_runs: 9, skip_succeeded: false }));
      expect(await kit.service.get(auth, answer.backfill_id!)).toMatchObject({
        mode: 'sequential',
        max_runs: 1,
        skip_succeeded: false,
      });
    });

    it('should answer a dry run with the count, the first and the last, and record nothing', async () => {
      const job = kit.db.addJob('active');
      const answer = await kit.service.create(auth, job.id, range({ dry_run: true }));
      expect(answer).toEqual({
        backfill_id: null,
        dry_run: true,
        occurrences: 4,
        first: '2026-01-01T01:00:00.000Z',
        last: '2026-01-01T04:00:00.000Z',
      });
      expect(kit.db.table('backfills').size).toBe(0);
      expect(started).toEqual([]);
      expect(kit.db.tables.audit).toEqual([]);
    });

    it('should refuse a range that does not end after it starts (400 naming `to`)', async () => {
      const job = kit.db.addJob('active');
      await expect(
        kit.service.create(auth, job.id, range({ from: '2026-01-01T05:00:00Z', to: '2026-01-01T05:00:00Z' })),
      ).rejects.toMatchObject({ status: 400, body: { fields: { to: expect.stringContaining('after `from`') } } });
      expect(kit.db.table('backfills').size).toBe(0);
    });

    it('should refuse a range over limits.backfill_max_occurrences, naming the first occurrence past the cap', async () => {
      const job = kit.db.addJob('active');
      await expect(
        kit.service.create(auth, job.id, range({ to: '2026-01-03T00:00:00Z', dry_run: true })),
      ).rejects.toMatchObject({
        status: 400,
        body: { fields: { to: expect.stringContaining('from 2026-01-02T01:00:00.000Z on') } },
      });
    });

    it('should refuse overrides the job’s sink kind does not take (400 naming them)', async () => {
      const job = kit.db.addJob('active');
      await expect(kit.service.create(auth, job.id, range({ overrides: { nonsense: 1 } }))).rejects.toMatchObject({
        status: 400,
        body: { fields: expect.any(Object) },
      });
      expect(kit.db.table('backfills').size).toBe(0);
      expect(started).toEqual([]);
    });

    it("should answer 404 for an unknown job and for another workspace's job", async () => {
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.create(auth, 'job_missing', range())).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.create(auth, theirs.id, range())).rejects.toMatchObject({ status: 404 });
    });

    it('should remove the backfill again when its workflow cannot be started (503), auditing nothing', async () => {
      const job = kit.db.addJob('active');
      gatewayDown = true;
      await expect(kit.service.create(auth, job.id, range())).rejects.toMatchObject({
        status: 503,
        body: { code: 'unavailable' },
      });
      expect(kit.db.table('backfills').size).toBe(0);
      expect(kit.db.tables.audit).toEqual([]);
    });
  });

  describe('get', () => {
    it("should answer 404 for an unknown backfill and for another workspace's", async () => {
      const job = kit.db.addJob('active');
      const { backfill_id } = await kit.service.create(auth, job.id, range());
      await expect(kit.service.get(auth, 'bf_missing')).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.get(authFor(OTHER_WORKSPACE), backfill_id!)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('cancel', () => {
    it('should record the request, signal the workflow and audit it', async () => {
      const job = kit.db.addJob('active');
      const { backfill_id } = await kit.service.create(auth, job.id, range());
      const answer = await kit.service.cancel(auth, backfill_id!);
      expect(answer).toMatchObject({ id: backfill_id, cancel_requested_at: expect.any(String) });
      expect(cancelled).toEqual([backfill_id]);
      expect(kit.db.audited().at(-1)).toEqual({
        actor: auth.actor,
        action: 'backfill.cancel',
        target: backfill_id,
        details: { job_id: job.id },
      });
    });

    it('should still record and audit the request when the signal cannot be sent', async () => {
      const job = kit.db.addJob('active');
      const { backfill_id } = await kit.service.create(auth, job.id, range());
      gatewayDown = true;
      await expect(kit.service.cancel(auth, backfill_id!)).resolves.toMatchObject({
        cancel_requested_at: expect.any(String),
      });
      expect(kit.db.audited().map((entry) => entry.action)).toEqual(['job.backfill', 'backfill.cancel']);
    });

    it('should answer 409 once the backfill has ended, and 404 for an unknown one', async () => {
      const job = kit.db.addJob('active');
      const { backfill_id } = await kit.service.create(auth, job.id, range());
      kit.db.table<BackfillEntity>('backfills').get(backfill_id!)!.status = 'completed';
      await expect(kit.service.cancel(auth, backfill_id!)).rejects.toMatchObject({ status: 409 });
      await expect(kit.service.cancel(auth, 'bf_missing')).rejects.toMatchObject({ status: 404 });
      expect(cancelled).toEqual([]);
    });
  });
});
