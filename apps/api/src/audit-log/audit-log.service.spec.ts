import { newId } from '@svc/workflow-contract/ids';
import type { AuditListFilter, AuditLogEntity, AuditRepository } from '@svc/persistence';
import { authFor, OTHER_WORKSPACE } from '../../../../test/kit';
import { AuditLogService } from './audit-log.service';

/**
 * AuditLogService over an in-memory audit log: the workspace's entries newest first with their
 * filters handed to the repository, and a cursor that keeps microsecond precision (entries
 * sharing a millisecond are never skipped).
 */
interface Row {
  workspaceId: string;
  entry: AuditLogEntity;
  cursorAt: string;
}

describe('AuditLogService', () => {
  const auth = authFor();
  let rows: Row[];
  let filters: AuditListFilter[];
  let service: AuditLogService;

  beforeEach(() => {
    rows = [];
    filters = [];
    const audit = {
      list: async (workspaceId: string, filter: AuditListFilter) => {
        filters.push(filter);
        return rows
          .filter((row) => row.workspaceId === workspaceId)
          .filter((row) => filter.action === undefined || row.entry.action === filter.action)
          .filter(
            (row) =>
              filter.after === undefined ||
              row.cursorAt < filter.after.at ||
              (row.cursorAt === filter.after.at && row.entry.id < filter.after.id),
          )
          .sort((a, b) => b.cursorAt.localeCompare(a.cursorAt) || b.entry.id.localeCompare(a.entry.id))
          .slice(0, filter.limit)
          .map(({ entry, cursorAt }) => ({ entry, cursorAt }));
      },
    };
    service = new AuditLogService(audit as unknown as AuditRepository);
  });

  const add = (id: string, cursorAt: string, workspaceId = auth.workspaceId, action = 'job.create') =>
    rows.push({
      workspaceId,
      cursorAt,
      entry: {
        id,
        actor: 'key:k',
        action,
        target: 'job_x',
        details: {},
        createdAt: new Date(cursorAt),
      } as AuditLogEntity,
    });

  it('should page entries of one millisecond apart by their microseconds, skipping none', async () => {
    const [a1, a2, a3] = [1, 2, 3].map((n) => newId('audit', Date.parse('2026-11-01T00:00:00Z') + n));
    add(a1, '2026-11-01T00:00:00.000001Z');
    add(a2, '2026-11-01T00:00:00.000002Z');
    add(a3, '2026-11-01T00:00:00.000003Z');
    const first = await service.list(auth, { limit: 2 });
    expect(first.data.map((e) => e.id)).toEqual([a3, a2]);
    const second = await service.list(auth, { limit: 2, cursor: first.next_cursor! });
    expect(second).toEqual({ data: [expect.objectContaining({ id: a1 })], next_cursor: null });
    expect(filters[1].after).toEqual({ at: '2026-11-01T00:00:00.000002Z', id: a2 });
  });

  it('should hand the filters on, the time bounds as dates', async () => {
    await service.list(auth, {
      action: 'job.delete',
      actor: 'user:u_1',
      target: 'job_1',
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
    });
    expect(filters[0]).toMatchObject({
      action: 'job.delete',
      actor: 'user:u_1',
      target: 'job_1',
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
    });
  });

  it("should list none of another workspace's entries", async () => {
    add('audit_9', '2026-11-01T00:00:00.000001Z', OTHER_WORKSPACE);
    await expect(service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
  });

  it('should refuse a cursor of another list (400 naming cursor)', async () => {
    await expect(service.list(auth, { cursor: 'not-a-cursor' })).rejects.toMatchObject({
      status: 400,
      body: { fields: { cursor: expect.any(String) } },
    });
  });
});
