import type { SecretMetadata } from '@svc/persistence';

/** The spec's secret: its name and timestamps; the value is write-only and never returned. */
export function toSecretResponse(secret: SecretMetadata) {
  return {
    name: secret.name,
    created_at: secret.createdAt.toISOString(),
    updated_at: secret.updatedAt.toISOString(),
  };
}

export type SecretResponse = ReturnType<typeof toSecretResponse>;
