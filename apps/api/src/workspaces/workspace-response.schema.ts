import { arrayOf, idOf, named, nullable, object, string, timestamp } from '../common/openapi/schema';

/** The spec's workspace object (workspaces.mapper.ts). */
export const WORKSPACE_SCHEMA = named(
  'Workspace',
  object({
    id: idOf('ws'),
    name: string,
    slug: string,
    plan: string,
    // Narrows the server's temporal_workflow task-queue allowlist; null: the server's list as is.
    temporal_workflow_task_queues: nullable(arrayOf(string)),
    created_at: timestamp,
  }),
);
