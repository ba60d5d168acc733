import type { WorkspaceEntity } from '@svc/persistence';

/** The spec's workspace object (spec → Resources → Workspace). */
export function toWorkspaceResponse(workspace: WorkspaceEntity) {
  return {
    id: workspace.id,
    name: workspace.name,
    slug: workspace.slug,
    plan: workspace.plan,
    temporal_workflow_task_queues: workspace.temporalWorkflowTaskQueues ?? null,
    created_at: workspace.createdAt.toISOString(),
  };
}

export type WorkspaceResponse = ReturnType<typeof toWorkspaceResponse>;
