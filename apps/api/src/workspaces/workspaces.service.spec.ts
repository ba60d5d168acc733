import { authFor, KIT_WORKSPACE, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import type { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { WorkspacesService } from './workspaces.service';

/**
 * WorkspacesService over the in-memory kit: only the caller's own workspace exists for it, a
 * change is audited with from/to (no change, no entry), a slug another workspace holds is 400.
 */
describe('WorkspacesService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db) => {
    db.addWorkspace(KIT_WORKSPACE, { name: 'Acme', slug: 'acme' });
    db.addWorkspace(OTHER_WORKSPACE, { name: 'Other', slug: 'other' });
    const { transactions, workspaces, audit } = db.repositories;
    return new WorkspacesService(transactions, workspaces, audit);
  });

  it("should answer the caller's own workspace", async () => {
    await expect(kit.service.get(auth, KIT_WORKSPACE)).resolves.toMatchObject({
      id: KIT_WORKSPACE,
      name: 'Acme',
      slug: 'acme',
      temporal_workflow_task_queues: null,
    });
  });

  it('should answer another workspace as 404, whether it exists or not, and change nothing there', async () => {
    const notFound = { status: 404, body: { code: 'not_found', message: 'Workspace not found' } };
    await expect(kit.service.get(auth, OTHER_WORKSPACE)).rejects.toMatchObject(notFound);
    await expect(kit.service.get(auth, 'ws_nobody')).rejects.toMatchObject(notFound);
    await expect(
      kit.service.update(auth, OTHER_WORKSPACE, { name: 'Mine now' } as UpdateWorkspaceDto),
    ).rejects.toMatchObject(notFound);
    expect(kit.db.table<{ name: string }>('workspaces').get(OTHER_WORKSPACE)!.name).toBe('Other');
    expect(kit.db.tables.audit).toEqual([]);
  });

  it('should rename and re-slug, auditing each change from and to', async () => {
    const updated = await kit.service.update(auth, KIT_WORKSPACE, {
      name: 'Acme Inc',
      slug: 'acme',
    } as UpdateWorkspaceDto);
    expect(updated).toMatchObject({ name: 'Acme Inc', slug: 'acme' });
    expect(kit.db.audited()).toEqual([
      {
        actor: auth.actor,
        action: 'workspace.update',
        target: KIT_WORKSPACE,
        details: { changes: { name: { from: 'Acme', to: 'Acme Inc' } } },
      },
    ]);
  });

  it('should write no entry when nothing changes', async () => {
    await kit.service.update(auth, KIT_WORKSPACE, { name: 'Acme' } as UpdateWorkspaceDto);
    await kit.service.update(auth, KIT_WORKSPACE, {} as UpdateWorkspaceDto);
    expect(kit.db.tables.audit).toEqual([]);
  });

  it('should store task queues deduplicated in their order, and null to clear them', async () => {
    const queues = ['billing-*', 'reports', 'billing-*'];
    const narrowed = await kit.service.update(auth, KIT_WORKSPACE, {
      temporal_workflow_task_queues: queues,
    } as UpdateWorkspaceDto);
    expect(narrowed.temporal_workflow_task_queues).toEqual(['billing-*', 'reports']);
    const cleared = await kit.service.update(auth, KIT_WORKSPACE, {
      temporal_workflow_task_queues: null,
    } as unknown as UpdateWorkspaceDto);
    expect(cleared.temporal_workflow_task_queues).toBeNull();
    expect(kit.db.audited().map((entry) => entry.details)).toEqual([
      { changes: { temporal_workflow_task_queues: { from: null, to: ['billing-*', 'reports'] } } },
      { changes: { temporal_workflow_task_queues: { from: ['billing-*', 'reports'], to: null } } },
    ]);
  });

  it('should refuse a slug another workspace holds (400 naming slug) and write nothing', async () => {
    await expect(
      kit.service.update(auth, KIT_WORKSPACE, { name: 'Renamed', slug: 'other' } as UpdateWorkspaceDto),
    ).rejects.toMatchObject({
      status: 400,
      body: { code: 'validation_failed', fields: { slug: 'is already taken by another workspace' } },
    });
    expect(kit.db.table<{ name: string }>('workspaces').get(KIT_WORKSPACE)!.name).toBe('Acme');
    expect(kit.db.tables.audit).toEqual([]);
  });
});
