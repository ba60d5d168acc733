/**
 * The jobs file of `svc apply`, `svc diff` and `svc export` (docs/jobs-as-code.md): YAML or JSON,
 * `{managed_by, jobs: [{key, …job}]}` exactly as `POST /api/v1/jobs/apply` takes them. Pure: no
 * I/O here; the API alone validates the jobs (one set of rules, answered with `fields`).
 */
import { JOB_SETTING_FIELDS } from '@svc/common/job-settings';
import { parseDocument, stringify } from 'yaml';
import { CliError } from '../errors';

/** A job of the file: the body of `POST /jobs` plus its `key`; checked by the API, not here. */
export type JobsFileEntry = { key: string } & Record<string, unknown>;

export interface JobsFile {
  managed_by?: string;
  jobs: JobsFileEntry[];
}

/** Some editors add `$schema` to a JSON file as its hint; it is not part of what the API takes. */
const SCHEMA_PROPERTY = '$schema';

/**
 * Parses the text of a jobs file: JSON when `name` ends in `.json`, YAML otherwise (YAML 1.2, so
 * `on`, `yes` and `2026-01-01` stay strings). Only the shape the CLI needs is checked (a mapping
 * with a `jobs` list); a syntax error names its line and column.
 */
export function parseJobsFile(text: string, name: string): JobsFile {
  let value: unknown;
  if (name.toLowerCase().endsWith('.json')) {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new CliError(`${name} is not valid JSON: ${(err as Error).message}`);
    }
  } else {
    const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    if (doc.errors.length > 0) {
      throw new CliError(`${name} is not valid YAML: ${doc.errors[0].message}`);
    }
    value = doc.toJS();
  }
  return checkShape(value, name);
}

function checkShape(value: unknown, name: string): JobsFile {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(`${name} must be a mapping {managed_by, jobs: [...]}, not ${describe(value)}`);
  }
  const { [SCHEMA_PROPERTY]: _schema, ...file } = value as Record<string, unknown>;
  if (!Array.isArray(file.jobs)) {
    throw new CliError(`${name}: jobs must be a list of jobs, not ${describe(file.jobs)}`);
  }
  return file as unknown as JobsFile;
}

function describe(value: unknown): string {
  if (value === undefined) {
    return 'missing';
  }
  if (value === null) {
    return 'empty';
  }
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** The file with `--managed-by` applied: the flag wins over the file's own `managed_by`. */
export function withOwner(file: JobsFile, managedBy: string | undefined): JobsFile {
  return managedBy === undefined ? file : { ...file, managed_by: managedBy };
}

/**
 * The fields of a job response that a file declares, in the create body's order (what `toJobSettings`
 * gives on the server): everything else (id, state, version, counters, timestamps, `managed_by`,
 * the schedule's derived `canonical` and `description`) is the server's.
 */
/** What a file declares of a job, in the create body's order (every writable field of `DeclaredJobDto`). */
export const SETTINGS = ['key', ...JOB_SETTING_FIELDS] as const;
export const SCHEDULE_SETTINGS = [
  'expr',
  'kind',
  'timezone',
  'starts_at',
  'ends_at',
  'count',
  'exclude_calendars',
] as const;

/** A job as the API answers it, turned into its entry in a jobs file (`svc export`). */
export function toFileEntry(job: Record<string, unknown>): JobsFileEntry {
  const entry: Record<string, unknown> = {};
  for (const field of SETTINGS) {
    if (job[field] === undefined) {
      continue;
    }
    if (field === 'schedule') {
      const schedule = job.schedule as Record<string, unknown>;
      entry.schedule = Object.fromEntries(
        SCHEDULE_SETTINGS.filter(
          // No calendars is the default: left out, so files of jobs without any stay as they were.
          (f) => schedule[f] !== undefined && !(Array.isArray(schedule[f]) && (schedule[f] as unknown[]).length === 0),
        ).map((f) => [f, schedule[f]]),
      );
    } else {
      entry[field] = job[field];
    }
  }
  return entry as JobsFileEntry;
}

export type FileFormat = 'yaml' | 'json';

/** JSON for a `.json` path, YAML for anything else (and for standard output). */
export function formatFor(path: string | undefined): FileFormat {
  return path?.toLowerCase().endsWith('.json') ? 'json' : 'yaml';
}

/**
 * The text of a jobs file. YAML starts with the editor hint `# yaml-language-server: $schema=…`
 * (VS Code's YAML extension, JetBrains, yamlls). JSON has no comments, and the published schema
 * allows no `$schema` property, so a JSON file is mapped to the schema in the editor's settings.
 */
export function renderJobsFile(file: JobsFile, format: FileFormat, schemaUrl: string): string {
  if (format === 'json') {
    return `${JSON.stringify(file, null, 2)}\n`;
  }
  return `# yaml-language-server: $schema=${schemaUrl}\n${stringify(file, { lineWidth: 0 })}`;
}
