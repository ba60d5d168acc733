import { AuditRepository, WorkspacesRepository } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { CliError } from '../errors';
import { SYSTEM_ACTOR } from './workspace-slug';

export interface SetSuspendedResult {
  workspaceId: string;
  suspended: boolean;
  /** False when the workspace already was in the requested state (no audit entry then). */
  changed: boolean;
}

/**
 * Suspends or unsuspends a workspace by slug, with the audit entry `workspace.suspend` /
 * `workspace.unsuspend` by `system` in the same transaction. Unknown slug → CliError.
 */
export async function setWorkspaceSuspended(
  dataSource: DataSource,
  slug: string,
  suspended: boolean,
): Promise<SetSuspendedResult> {
  const workspaces = new WorkspacesRepository(dataSource);
  const audit = new AuditRepository(dataSource);
  return dataSource.transaction(async (manager) => {
    const before = await workspaces.findBySlugForUpdate(slug, manager);
    if (!before) {
      throw new CliError(`workspace not found: ${slug}`);
    }
    const wasSuspended = before.suspendedAt !== null;
    if (wasSuspended === suspended) {
      return { workspaceId: before.id, suspended, changed: false };
    }
    const after = await workspaces.setSuspended(slug, suspended, new Date(), manager);
    if (!after) {
      throw new CliError(`workspace not found: ${slug}`);
    }
    await audit.insert(
      after.id,
      {
        actor: SYSTEM_ACTOR,
        action: suspended ? 'workspace.suspend' : 'workspace.unsuspend',
        target: after.id,
        details: { slug, via: `svc workspace ${suspended ? 'suspend' : 'unsuspend'}` },
      },
      manager,
    );
    return { workspaceId: after.id, suspended, changed: true };
  });
}
