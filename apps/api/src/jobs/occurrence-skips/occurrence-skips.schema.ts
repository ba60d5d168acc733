import { named, object, string, timestamp } from '../../common/openapi/schema';

/** A skipped occurrence (issue 45): `POST /jobs/{id}/occurrences/{at}/skip` and `skipped_occurrences` of a job. */
export const OCCURRENCE_SKIP_SCHEMA = named(
  'OccurrenceSkip',
  object({
    at: { ...timestamp, description: 'The occurrence, as its run’s `scheduled_at` will read.' },
    note: string,
    created_at: timestamp,
  }),
);
