import type { JobEntity } from '@svc/persistence';

/** One skipped occurrence, as the API answers it. */
export interface OccurrenceSkipResponse {
  at: string;
  note: string;
  created_at: string;
}

/** The job's skipped occurrences after `now`, soonest first (`skipped_occurrences` of `GET /jobs/{id}`). */
export function upcomingSkips(job: Pick<JobEntity, 'occurrenceSkips'>, now: Date): OccurrenceSkipResponse[] {
  // `?? {}`: a job built for insert (create answers from it) has no occurrenceSkips property.
  return Object.entries(job.occurrenceSkips ?? {})
    .filter(([at]) => Date.parse(at) > now.getTime())
    .sort(([a], [b]) => Date.parse(a) - Date.parse(b))
    .map(([at, skip]) => ({ at, note: skip.note, created_at: skip.created_at }));
}
