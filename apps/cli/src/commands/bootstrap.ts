import { generateApiKey } from '@svc/common/api-keys';
import { ApiKeysRepository, AuditRepository, WorkspacesRepository } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { CliError } from '../errors';
import { SYSTEM_ACTOR, assertSlug } from './workspace-slug';

export interface BootstrapInput {
  slug: string;
  /** Plan name for a workspace created now; ignored when it exists. */
  plan: string;
}

export interface BootstrapResult {
  workspaceId: string;
  workspaceCreated: boolean;
  keyId: string;
  /** The full key; printed once, never stored. */
  apiKey: string;
}

export const BOOTSTRAP_KEY_NAME = 'bootstrap';

/**
 * Creates the workspace if missing (name = slug) and, every time, a new `*`-scoped key named
 * `bootstrap`, with the audit entry `api_key.create` by `system`, in one transaction.
 */
export async function bootstrap(dataSource: DataSource, input: BootstrapInput): Promise<BootstrapResult> {
  assertSlug(input.slug);
  if (!input.plan) {
    throw new CliError('plan must not be empty');
  }
  const workspaces = new WorkspacesRepository(dataSource);
  const apiKeys = new ApiKeysRepository(dataSource);
  const audit = new AuditRepository(dataSource);
  const generated = generateApiKey();

  return dataSource.transaction(async (manager) => {
    const { workspace, created } = await workspaces.findOrCreateBySlug(
      { name: input.slug, slug: input.slug, plan: input.plan },
      manager,
    );
    const key = await apiKeys.create(
      workspace.id,
      { name: BOOTSTRAP_KEY_NAME, prefix: generated.prefix, keyHash: generated.hash, scopes: ['*'] },
      manager,
    );
    await audit.insert(
      workspace.id,
      {
        actor: SYSTEM_ACTOR,
        action: 'api_key.create',
        target: key.id,
        details: { name: key.name, prefix: key.prefix, scopes: key.scopes, via: 'svc bootstrap' },
      },
      manager,
    );
    return { workspaceId: workspace.id, workspaceCreated: created, keyId: key.id, apiKey: generated.key };
  });
}
