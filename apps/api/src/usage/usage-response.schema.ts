import { enumOf, integer, named, object, timestamp } from '../common/openapi/schema';

/** The spec's usage object (usage.service.ts). */
export const USAGE_SCHEMA = named(
  'Usage',
  object({
    month: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$', description: 'UTC calendar month, `YYYY-MM`.' },
    runs: { type: 'integer', minimum: 0 },
    limit: { ...integer, minimum: 0, description: 'Runs allowed this month; `0` means unlimited.' },
    over_quota_policy: enumOf(['block', 'allow']),
    reset_at: { ...timestamp, description: 'Start of the next UTC month.' },
  }),
);
