/**
 * The set of jobs the module applies, built from the discovered `@ScheduledJob` methods. Pure: no
 * Nest, no I/O, so discovery and the apply call stay thin.
 */
import { ScheduledJobsConfigError } from './errors';
import type { ScheduledJobOptions } from './scheduled-job.decorator';

/** One decorated method: where it lives and what it declares. */
export interface DiscoveredJob {
  /** `BillingService.closeDay`: how errors name the declaration. */
  methodName: string;
  options: ScheduledJobOptions;
}

/** The header that carries the job's key, so one receiver route serves every job. */
export const JOB_KEY_HEADER = 'x-scheduled-job-key';

/** One entry of `POST /api/v1/jobs/apply`'s `jobs` (the body of `POST /jobs` plus `key`). */
export interface ApplyJobEntry {
  key: string;
  name: string;
  schedule: { expr: string; timezone?: string };
  sink: { kind: 'webhook'; config: { url: string; method: 'POST'; headers: Record<string, string> } };
  signing_secret: string;
  retry?: ScheduledJobOptions['retry'];
  timeout?: string;
  misfire_policy?: ScheduledJobOptions['misfire_policy'];
  overlap_policy?: ScheduledJobOptions['overlap_policy'];
  tags?: string[];
}

/**
 * The apply entries of `jobs`, in declaration order.
 * @throws ScheduledJobsConfigError when two methods declare the same key (naming both).
 */
export function buildJobSet(
  jobs: readonly DiscoveredJob[],
  receiverUrl: string,
  signingSecret: string,
): ApplyJobEntry[] {
  const byKey = new Map<string, string>();
  for (const job of jobs) {
    const first = byKey.get(job.options.key);
    if (first !== undefined) {
      throw new ScheduledJobsConfigError(
        `${job.methodName}: key "${job.options.key}" is already declared by ${first}; each @ScheduledJob needs its own key`,
      );
    }
    byKey.set(job.options.key, job.methodName);
  }
  return jobs.map(({ methodName, options }) => ({
    key: options.key,
    name: methodName,
    schedule: { expr: options.schedule, ...(options.timezone !== undefined && { timezone: options.timezone }) },
    sink: {
      kind: 'webhook',
      config: { url: receiverUrl, method: 'POST', headers: { [JOB_KEY_HEADER]: options.key } },
    },
    signing_secret: signingSecret,
    ...(options.retry !== undefined && { retry: options.retry }),
    ...(options.timeout !== undefined && { timeout: options.timeout }),
    ...(options.misfire_policy !== undefined && { misfire_policy: options.misfire_policy }),
    ...(options.overlap_policy !== undefined && { overlap_policy: options.overlap_policy }),
    ...(options.tags !== undefined && { tags: options.tags }),
  }));
}

/**
 * The service's `400 validation_failed` `fields` of an apply (`jobs[3].schedule.expr: unknown word
 * "mondy"`) as one message per method: `BillingService.closeDay: unknown word "mondy"`.
 */
export function describeApplyFields(fields: Readonly<Record<string, string>>, jobs: readonly DiscoveredJob[]): string {
  return Object.entries(fields)
    .map(([path, message]) => {
      const m = /^jobs\[(\d+)\](?:\.(.*))?$/.exec(path);
      const job = m ? jobs[Number(m[1])] : undefined;
      return job ? `${job.methodName}: ${message}` : `${path}: ${message}`;
    })
    .join('; ');
}

/** Parses `30s`, `2m`, `1h30m`, `1500ms` into ms (the service's duration format); null when malformed. */
export function durationMs(text: string): number | null {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    return null;
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}
