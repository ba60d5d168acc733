import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import {
  AuditRepository,
  isUniqueViolation,
  type JsonObject,
  Transactions,
  WorkspacesRepository,
} from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { toWorkspaceResponse, type WorkspaceResponse } from './workspaces.mapper';

const SLUG_CONSTRAINT = 'uq_workspaces_slug';

/** The caller's own workspace; any other id answers 404 like an unknown one (spec → Workspace). */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly workspaces: WorkspacesRepository,
    private readonly audit: AuditRepository,
  ) {}

  async get(auth: AuthContext, id: string): Promise<WorkspaceResponse> {
    const workspace = id === auth.workspaceId ? await this.workspaces.findById(id) : null;
    if (!workspace) {
      throw new NotFoundError('Workspace');
    }
    return toWorkspaceResponse(workspace);
  }

  /**
   * Renames and/or re-slugs the workspace, or narrows its `temporal_workflow` task queues, with
   * its `workspace.update` audit entry in one transaction (jobs written later are held to the new
   * list, and every attempt is checked against it at send time). A slug another workspace holds is `400 validation_failed` on `slug` (decided by
   * the unique index, so two concurrent requests cannot both take it). No change → no entry.
   */
  async update(auth: AuthContext, id: string, dto: UpdateWorkspaceDto): Promise<WorkspaceResponse> {
    if (id !== auth.workspaceId) {
      throw new NotFoundError('Workspace');
    }
    try {
      return await this.transactions.run(async (manager) => {
        const before = await this.workspaces.findByIdForUpdate(id, manager);
        if (!before) {
          throw new NotFoundError('Workspace');
        }
        const changes: { name?: string; slug?: string; temporalWorkflowTaskQueues?: string[] | null } = {};
        const details: JsonObject = {};
        for (const field of ['name', 'slug'] as const) {
          const value = dto[field];
          if (value !== undefined && value !== before[field]) {
            changes[field] = value;
            details[field] = { from: before[field], to: value };
          }
        }
        const queues = dto.temporal_workflow_task_queues;
        if (
          queues !== undefined &&
          JSON.stringify(queues) !== JSON.stringify(before.temporalWorkflowTaskQueues ?? null)
        ) {
          // Deduplicated, order kept: the list is shown back as written.
          changes.temporalWorkflowTaskQueues = queues === null ? null : [...new Set(queues)];
          details.temporal_workflow_task_queues = {
            from: before.temporalWorkflowTaskQueues ?? null,
            to: changes.temporalWorkflowTaskQueues,
          };
        }
        if (Object.keys(changes).length === 0) {
          return toWorkspaceResponse(before);
        }
        const after = await this.workspaces.updateProfile(id, changes, manager);
        await this.audit.insert(
          id,
          { actor: auth.actor, action: 'workspace.update', target: id, details: { changes: details } },
          manager,
        );
        return toWorkspaceResponse(after);
      });
    } catch (err) {
      if (isUniqueViolation(err, SLUG_CONSTRAINT)) {
        throw new ValidationFailedError({ slug: 'is already taken by another workspace' });
      }
      throw err;
    }
  }
}
