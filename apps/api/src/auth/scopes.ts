import type { MembershipRole } from '@svc/persistence';

/** The key scopes of the spec (Authentication → 3). */
export const SCOPES = ['*', 'jobs:read', 'jobs:write', 'runs:read'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a route asks of a key: one of the listed scopes (`*` always suffices), or `any_key` for
 * the few routes any valid key may call (decisions.md → Scopes: `/me`, `/usage`,
 * `/stats/overview` and the key's own workspace).
 */
export type ScopeRequirement = readonly Scope[] | typeof ANY_KEY;
export const ANY_KEY = 'any_key';

/** `jobs:write` implies `jobs:read` (decisions.md → Scopes). */
const IMPLIED: Partial<Record<string, Scope[]>> = { 'jobs:write': ['jobs:read'] };

/** Whether a key with `granted` scopes may call a route requiring `required`. */
export function hasScope(granted: readonly string[], required: ScopeRequirement): boolean {
  if (required === ANY_KEY || granted.includes('*')) {
    return true;
  }
  const effective = new Set(granted.flatMap((s) => [s, ...(IMPLIED[s] ?? [])]));
  return required.some((scope) => scope !== '*' && effective.has(scope));
}

/**
 * What a membership role may do, in the API key scope model (decisions.md → Scopes): owners and
 * admins have everything (`*`: keys, secrets, workspace settings, audit log); members operate
 * jobs and read runs.
 */
export function scopesOfRole(role: MembershipRole): string[] {
  switch (role) {
    case 'owner':
    case 'admin':
      return ['*'];
    case 'member':
      return ['jobs:write', 'runs:read'];
  }
}
