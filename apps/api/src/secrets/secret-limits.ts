/**
 * Secret limits (decisions.md → Secrets), enforced in `SecretsService` and the DTO only. The name
 * rule is the template parser's (`SECRET_NAME_PATTERN` in libs/delivery), so every name that can
 * be stored can be referenced as `{{secret.NAME}}` and the other way round.
 */
export { SECRET_NAME_PATTERN } from '@svc/delivery';

/** Values up to 8 KiB (UTF-8 bytes). */
export const SECRET_VALUE_MAX_BYTES = 8 * 1024;

/** Secrets per workspace; `error.limit` name when reached. */
export const MAX_SECRETS_PER_WORKSPACE = 100;
export const MAX_SECRETS_LIMIT_NAME = 'max_secrets_per_workspace';
