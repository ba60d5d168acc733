/**
 * Workspace slugs: lowercase letters, digits and inner hyphens, 1..63 characters (a DNS label, so
 * a slug can name a subdomain or a URL segment unescaped). One rule for the API and `svc`.
 */
export const WORKSPACE_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const WORKSPACE_SLUG_RULE = 'must be 1 to 63 lowercase letters, digits or inner hyphens, e.g. acme-ops';

export function isWorkspaceSlug(value: string): boolean {
  return WORKSPACE_SLUG_PATTERN.test(value);
}
