/**
 * Text the Temporal Web UI shows for jobs, runs and attempts (readable in the UI), built
 * from a `JobDisplay` (secret-free by construction: `describeForTemporal` in libs/orchestration).
 * Pure and deterministic: used by workflow code (activity summaries) and by the gateway (static
 * summary and details of the workflows it starts).
 */
import type { JobDisplay, JobSnapshot, RunWorkflowInput } from './definitions';

const TRIGGER_WORDS: Record<RunWorkflowInput['trigger'], string> = {
  schedule: 'scheduled',
  manual: 'manual trigger',
  retry_manual: 'manual retry',
  backfill: 'backfill',
};

/** One line: `nightly export · every day at 2am (Europe/Berlin) · webhook POST hooks.example.com`. */
export function jobSummary(display: JobDisplay): string {
  return `${display.name} · ${display.schedule} (${display.timezone}) · ${display.sink} ${display.target}`;
}

/** Markdown lines for the job workflow's static details. */
export function jobDetails(display: JobDisplay, snapshot: JobSnapshot): string {
  return [
    `**Job** ${display.name} (\`${snapshot.jobId}\`, workspace \`${snapshot.workspaceId}\`)`,
    `**Schedule** ${display.schedule} · zone ${display.timezone}`,
    `**Sink** ${display.sink} · ${display.target}`,
    `**Policy** up to ${display.maxAttempts} attempt(s) of ${formatMs(display.timeoutMs)} · misfire ${snapshot.misfirePolicy} · overlap ${snapshot.overlapPolicy ?? 'allow'}`,
    `Started at revision ${snapshot.revision} (version ${snapshot.version}); query \`describe\` for the current one.`,
  ].join('\n');
}

/** One line: `nightly export · scheduled 2026-11-26T02:00:00.000Z · POST hooks.example.com`. */
export function runSummary(display: JobDisplay | undefined, input: RunWorkflowInput): string {
  const name = display ? display.name : input.jobId;
  const target = display ? ` · ${display.target}` : '';
  return `${name} · ${TRIGGER_WORDS[input.trigger]} ${input.scheduledAt}${target}`;
}

/** Markdown lines for the run workflow's static details. */
export function runDetails(display: JobDisplay | undefined, input: RunWorkflowInput): string {
  const lines = [
    `**Run** \`${input.runId}\` of job ${display ? `${display.name} ` : ''}(\`${input.jobId}\`, version ${input.jobVersion})`,
    `**Trigger** ${TRIGGER_WORDS[input.trigger]}${input.retryOf ? ` of \`${input.retryOf}\`` : ''} · occurrence ${input.scheduledAt}`,
  ];
  if (display) {
    lines.push(`**Sink** ${display.sink} · ${display.target}`);
    lines.push(
      `**Attempts** ${firstAttempt(input)} to ${display.maxAttempts}, ${formatMs(display.timeoutMs)} each; retries wait inside the \`runAttempt\` activity's retry`,
    );
  }
  lines.push('Query `describe` for what it is doing now.');
  return lines.join('\n');
}

/** The attempt number (1-based) the run's attempt activity begins with. */
export function firstAttempt(input: Pick<RunWorkflowInput, 'attemptsBefore'>): number {
  return (input.attemptsBefore ?? 0) + 1;
}

/**
 * Summary of the attempt activity, known when it is scheduled: `attempt 1 of 3 · POST host`.
 * Later attempts run under the same activity (Temporal's retry), whose attempt counter and last
 * failure (`attempt 1 of 3 · POST host → HTTP 503`) the UI shows beside it.
 */
export function attemptSummary(display: JobDisplay | undefined, attempt: number): string {
  if (!display) {
    return `attempt ${attempt}`;
  }
  return `attempt ${attempt} of ${display.maxAttempts} · ${display.target}`;
}

/**
 * Summary of the attempt activity under `RUN_ENDS_AS_STATUS_PATCH`: `POST host · attempts 1 to 3`.
 * It names no current attempt (a summary is written once); the Web UI's `Attempt 2 / 3` is the
 * activity's retry counter against the job's budget, and the run's current details follow it.
 */
export function attemptsSummary(display: JobDisplay | undefined, first: number): string {
  if (!display) {
    return `attempts from ${first}`;
  }
  return `${display.target} · attempts ${first} to ${display.maxAttempts}`;
}

/** `attempt 2 of 3 · POST hooks.example.com → HTTP 503`: what an attempt's failure or result says. */
export function attemptOutcome(
  display: Pick<JobDisplay, 'maxAttempts' | 'target'>,
  attempt: number,
  outcome: string,
): string {
  return `attempt ${attempt} of ${display.maxAttempts} · ${display.target} → ${outcome}`;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
