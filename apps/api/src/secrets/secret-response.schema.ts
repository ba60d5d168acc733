import { named, object, pageOf, timestamp } from '../common/openapi/schema';
import { SECRET_NAME_PATTERN } from './secret-limits';

/** The spec's secret (secrets.mapper.ts): its name and timestamps; the value is never returned. */
export const SECRET_SCHEMA = named(
  'Secret',
  object({
    name: { type: 'string', pattern: SECRET_NAME_PATTERN.source },
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const SECRET_PAGE_SCHEMA = pageOf('SecretPage', SECRET_SCHEMA);
