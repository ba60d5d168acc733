/**
 * `svc backfill JOB --from --to [--mode] [--max-runs] [--dry-run]` (docs/schedules.md →
 * Backfill): `POST /api/v1/jobs/{id}/backfill` through the typed client. JOB is a job id or a job
 * key. The server counts, validates and carries out; the CLI prints what it answered.
 */
import { isId } from '@svc/workflow-contract/ids';
import type { ApiSettings } from '../config';
import { apiError, clientFor, reach } from './jobs-as-code';

export interface BackfillInput {
  /** A job id (`job_…`) or a job key. */
  job: string;
  from: string;
  to: string;
  mode?: string;
  maxRuns?: number;
  /** `--run-succeeded`: run occurrences again even when a run of them succeeded. */
  runSucceeded?: boolean;
  dryRun?: boolean;
}

export interface BackfillAnswer {
  backfill_id: string | null;
  dry_run: boolean;
  occurrences: number;
  first: string | null;
  last: string | null;
}

/** Sends the backfill; the text to print (a dry run's count, or the accepted backfill). */
export async function backfillJob(settings: ApiSettings, input: BackfillInput): Promise<string> {
  const client = clientFor(settings);
  const jobId = isId('job', input.job) ? input.job : await jobIdOfKey(settings, input.job);
  const body = {
    from: input.from,
    to: input.to,
    ...(input.mode !== undefined ? { mode: input.mode } : {}),
    ...(input.maxRuns !== undefined ? { max_runs: input.maxRuns } : {}),
    ...(input.runSucceeded ? { skip_succeeded: false } : {}),
    ...(input.dryRun ? { dry_run: true } : {}),
  };
  const { data, error, response } = await reach(settings, () =>
    // The CLI passes the operator's words as they are: the API names what it refuses.
    client.POST('/api/v1/jobs/{id}/backfill', { params: { path: { id: jobId } }, body: body as never }),
  );
  if (!data) {
    throw apiError(response.status, error);
  }
  return formatBackfillAnswer(data as BackfillAnswer);
}

async function jobIdOfKey(settings: ApiSettings, key: string): Promise<string> {
  const { data, error, response } = await reach(settings, () =>
    clientFor(settings).GET('/api/v1/jobs/by-key/{key}', { params: { path: { key } } }),
  );
  if (!data) {
    throw apiError(response.status, error);
  }
  return (data as { id: string }).id;
}

export function formatBackfillAnswer(answer: BackfillAnswer): string {
  const range = answer.first && answer.last ? ` from ${answer.first} to ${answer.last}` : '';
  if (answer.dry_run) {
    return `${answer.occurrences} occurrence(s)${range} (dry run, nothing written)\n`;
  }
  return (
    `backfill ${answer.backfill_id} accepted: ${answer.occurrences} occurrence(s)${range}\n` +
    `  progress: GET /api/v1/backfills/${answer.backfill_id}\n`
  );
}
