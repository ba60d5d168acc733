import { CliError } from '../errors';

export const SYSTEM_ACTOR = 'system';

/** Lowercase letters, digits and inner hyphens, 1..63 characters. */
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function assertSlug(slug: string): void {
  if (!SLUG_PATTERN.test(slug)) {
    throw new CliError(`invalid workspace slug "${slug}": use a-z, 0-9 and inner hyphens, at most 63 characters`);
  }
}
