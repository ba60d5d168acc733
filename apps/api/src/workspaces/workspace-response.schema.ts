import { idOf, named, object, string, timestamp } from '../common/openapi/schema';

/** The spec's workspace object (workspaces.mapper.ts). */
export const WORKSPACE_SCHEMA = named(
  'Workspace',
  object({ id: idOf('ws'), name: string, slug: string, plan: string, created_at: timestamp }),
);
