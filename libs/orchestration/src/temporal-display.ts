import { defaultSinkRegistry } from '@svc/delivery';
import type { JobEntity } from '@svc/persistence';
import type { JobDisplay } from '@svc/workflow-contract/definitions';

/** Fields of a job the display is built from (a job row, or a job as the API validated it). */
export type DisplayableJob = Pick<
  JobEntity,
  'name' | 'scheduleExpr' | 'scheduleTimezone' | 'sinkKind' | 'sinkConfig' | 'retry' | 'timeoutMs'
>;

const MAX_TEXT = 120;

/**
 * What the Temporal Web UI shows about a job (workflow summaries and details, the attempt
 * activity's summary, `describe` queries). Secret-free by construction: a webhook is its method
 * and host only (no user info, path, query or fragment, no headers or body), a command is its
 * program's file name only (no directory, arguments or environment). Signing secrets are not read.
 */
export function describeForTemporal(job: DisplayableJob): JobDisplay {
  return {
    name: oneLine(job.name),
    schedule: oneLine(job.scheduleExpr),
    timezone: job.scheduleTimezone,
    sink: job.sinkKind,
    target: sinkTarget(job.sinkKind, job.sinkConfig),
    maxAttempts: job.retry.max_attempts,
    timeoutMs: job.timeoutMs,
  };
}

/**
 * `POST hooks.example.com` / `command backup.sh` / `workflow Report on reports`: the kind's own
 * `describe` (sinks/sink-kind.ts: secret-free by contract); the kind's name when it is unknown or
 * its config cannot be read.
 */
export function sinkTarget(kind: string, config: JobEntity['sinkConfig']): string {
  const sinkKind = defaultSinkRegistry().get(kind);
  if (!sinkKind) {
    return kind;
  }
  try {
    return oneLine(sinkKind.describe(config)) || kind;
  } catch {
    return kind;
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
}
