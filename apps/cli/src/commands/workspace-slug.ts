import { isWorkspaceSlug } from '@svc/common/workspace-slug';
import { CliError } from '../errors';

export const SYSTEM_ACTOR = 'system';

/** Lowercase letters, digits and inner hyphens, 1..63 characters (same rule as the API). */
export function assertSlug(slug: string): void {
  if (!isWorkspaceSlug(slug)) {
    throw new CliError(`invalid workspace slug "${slug}": use a-z, 0-9 and inner hyphens, at most 63 characters`);
  }
}
