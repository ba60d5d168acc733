/**
 * `svc apply`, `svc diff` and `svc export` (docs/jobs-as-code.md): a jobs file against the
 * API over HTTP, through the typed client (libs/api-client). The server plans and carries out; the
 * CLI reads the file, sends it whole and prints what the server answered.
 */
import {
  type ApiClient,
  type ApplyJobsRequest,
  type ApplyPlan,
  ApiRequestError,
  type Job,
  applyJobs,
  createApiClient,
} from '@svc/api-client';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ApiSettings } from '../config';
import { CliError } from '../errors';
import { formatFor, type JobsFile, parseJobsFile, renderJobsFile, toFileEntry, withOwner } from './jobs-file';

/** The `/api/v1` URL split into what the typed client wants: its paths start with `/api/v1`. */
export function clientFor(settings: ApiSettings): ApiClient {
  const baseUrl = settings.apiUrl.replace(/\/api\/v1$/, '');
  return createApiClient({ baseUrl, headers: { authorization: `Bearer ${settings.apiKey}` } });
}

/** The published JSON Schema of jobs files on the server the CLI talks to (editor hint). */
export function schemaUrl(settings: ApiSettings): string {
  return `${settings.apiUrl.replace(/\/api\/v1$/, '')}/api/v1/schemas/jobs-file.json`;
}

export interface ApplyInput {
  file: string;
  managedBy?: string;
  prune: boolean;
  adopt: boolean;
  dryRun: boolean;
}

/** Reads and parses the file (`-f`), `--managed-by` applied. */
export function readJobsFile(path: string, managedBy: string | undefined): JobsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return withOwner(parseJobsFile(text, path), managedBy);
}

/** `POST /api/v1/jobs/apply` with the file (`applyJobs` of the typed client); the plan. */
export async function applyJobsFile(settings: ApiSettings, input: ApplyInput): Promise<ApplyPlan> {
  const file = readJobsFile(input.file, input.managedBy);
  // The file's jobs go as they are: the API validates them (and names `jobs[3].schedule.expr`).
  const request = {
    ...file,
    prune: input.prune,
    dry_run: input.dryRun,
    ...(input.adopt ? { adopt: true } : {}),
  } as unknown as ApplyJobsRequest;
  try {
    return await reach(settings, () => applyJobs(clientFor(settings), request));
  } catch (err) {
    if (err instanceof ApiRequestError) {
      throw apiError(err.status, err.body);
    }
    throw err;
  }
}

/**
 * Every job `managedBy` declares, as a jobs file whose apply is `unchanged` (sorted by key), read
 * page by page (`pageSize`, the list's maximum by default).
 */
export async function exportJobs(settings: ApiSettings, managedBy: string, pageSize = 200): Promise<JobsFile> {
  const client = clientFor(settings);
  const jobs: Job[] = [];
  let cursor: string | undefined;
  do {
    const { data, error, response } = await reach(settings, () =>
      client.GET('/api/v1/jobs', { params: { query: { managed_by: managedBy, limit: pageSize, cursor } } }),
    );
    if (!data) {
      throw apiError(response.status, error);
    }
    jobs.push(...data.data);
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
  const entries = jobs
    .filter((job) => job.managed_by === managedBy)
    .map((job) => toFileEntry(job as unknown as Record<string, unknown>))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { managed_by: managedBy, jobs: entries };
}

/** Writes the exported file to `path` (YAML, or JSON for `.json`), or returns its text for stdout. */
export function writeJobsFile(file: JobsFile, settings: ApiSettings, path: string | undefined): string {
  const text = renderJobsFile(file, formatFor(path), schemaUrl(settings));
  if (path !== undefined) {
    try {
      writeFileSync(path, text);
    } catch (err) {
      throw new CliError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return text;
}

/** A refused connection is an expected failure: one line naming the URL, not a stack. */
export async function reach<T>(settings: ApiSettings, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiRequestError) {
      throw err;
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new CliError(`cannot reach the API at ${settings.apiUrl}: ${why} (--api-url or SVC_API_URL)`);
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; fields?: Record<string, string> };
}

/** The API's error envelope as one line plus one line per field (`jobs[3].schedule.expr: …`). */
export function apiError(status: number, body: unknown): CliError {
  const envelope = (body as ErrorBody | undefined)?.error;
  const code = envelope?.code ?? 'error';
  const message = envelope?.message ?? 'no error envelope in the answer';
  const fields = Object.entries(envelope?.fields ?? {}).map(([path, why]) => `${path}: ${why}`);
  return new CliError(`${code} (HTTP ${status}): ${message}`, fields);
}
