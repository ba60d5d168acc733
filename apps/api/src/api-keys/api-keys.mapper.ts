import type { ApiKeyEntity } from '@svc/persistence';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The spec's API key object: the prefix only, never the key or its hash (style.md rule 2). */
export function toApiKeyResponse(key: ApiKeyEntity) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    created_at: key.createdAt.toISOString(),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
  };
}

export type ApiKeyResponse = ReturnType<typeof toApiKeyResponse>;

/** The create response: the key object plus the full `key`, returned this once only. */
export type CreatedApiKeyResponse = ApiKeyResponse & { key: string };

export function toCreatedApiKeyResponse(key: ApiKeyEntity, fullKey: string): CreatedApiKeyResponse {
  return { ...toApiKeyResponse(key), key: fullKey };
}
