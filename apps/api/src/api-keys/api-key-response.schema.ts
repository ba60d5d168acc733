import { SCOPES } from '../auth/scopes';
import { arrayOf, enumOf, idOf, named, nullable, object, pageOf, string, timestamp } from '../common/openapi/schema';

const keyFields = {
  id: idOf('key'),
  name: string,
  prefix: { type: 'string', pattern: '^sjs_[A-Za-z0-9]{8}$', description: 'The key starts with it.' },
  scopes: arrayOf(enumOf(SCOPES)),
  created_at: timestamp,
  last_used_at: nullable(timestamp),
  revoked_at: nullable(timestamp),
};

/** The spec's API key object (api-keys.mapper.ts): the prefix only, never the key. */
export const API_KEY_SCHEMA = named('ApiKey', object(keyFields));

/** `201` of key creation: the key object and the full `key`, shown this once. */
export const CREATED_API_KEY_SCHEMA = named(
  'CreatedApiKey',
  object({ ...keyFields, key: { type: 'string', pattern: '^sjs_', description: 'The full key; shown this once.' } }),
);

export const API_KEY_PAGE_SCHEMA = pageOf('ApiKeyPage', API_KEY_SCHEMA);
