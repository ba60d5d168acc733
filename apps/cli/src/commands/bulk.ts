/**
 * `svc bulk <action>` (docs/api.md → Bulk actions): `POST /api/v1/jobs/bulk` through the
 * typed client. The server matches, validates and carries out; the CLI prints what it answered.
 */
import type { ApiSettings } from '../config';
import { apiError, clientFor, reach } from './jobs-as-code';

export interface BulkInput {
  action: string;
  filter: {
    ids?: string[];
    tags?: string[];
    key_prefix?: string;
    managed_by?: string;
    sink_host?: string;
    state?: string;
  };
  note?: string;
  resumeAt?: string;
  all?: boolean;
  dryRun?: boolean;
}

interface DryRun {
  dry_run: true;
  action: string;
  matched: number;
  jobs: Array<{ id: string; name: string; state: string }>;
}

interface Accepted {
  id: string;
  action: string;
  matched: number;
  resume_at: string | null;
}

/** Sends the bulk action; the text to print (a dry run's jobs, or the accepted operation). */
export async function bulkJobs(settings: ApiSettings, input: BulkInput): Promise<string> {
  const body = {
    action: input.action,
    filter: input.filter,
    ...(input.note !== undefined ? { note: input.note } : {}),
    ...(input.resumeAt !== undefined ? { resume_at: input.resumeAt } : {}),
    ...(input.all ? { all: true } : {}),
    ...(input.dryRun ? { dry_run: true } : {}),
  };
  const { data, error, response } = await reach(settings, () =>
    // The CLI passes the operator's words as they are: the API names what it refuses.
    clientFor(settings).POST('/api/v1/jobs/bulk', { body: body as never }),
  );
  if (!data) {
    throw apiError(response.status, error);
  }
  return formatBulkAnswer(data as DryRun | Accepted);
}

export function formatBulkAnswer(answer: DryRun | Accepted): string {
  if ('dry_run' in answer) {
    const lines = answer.jobs.map((job) => `  ${job.id}  ${job.state.padEnd(9)}  ${job.name}`);
    return [`${answer.action} would apply to ${answer.matched} job(s) (dry run, nothing changed)`, ...lines, ''].join(
      '\n',
    );
  }
  const window = answer.resume_at ? `, resumed at ${answer.resume_at}` : '';
  return (
    `${answer.action} of ${answer.matched} job(s) accepted as operation ${answer.id}${window}\n` +
    `  progress: GET /api/v1/operations/${answer.id}\n`
  );
}
