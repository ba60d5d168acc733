import type { JobSnapshot, RunWorkflowInput } from '@svc/workflow-contract/definitions';
import {
  attemptOutcome,
  attemptSummary,
  jobDetails,
  jobSummary,
  runDetails,
  runSummary,
} from '@svc/workflow-contract/display';
import { type DisplayableJob, describeForTemporal, sinkTarget } from '../src/temporal-display';

const SECRET_URL = 'https://alice:s3cr3t-pass@hooks.example.com:8443/v1/hook/tok_path?token=qs-secret#frag';

function job(overrides: Partial<DisplayableJob> = {}): DisplayableJob {
  return {
    name: 'nightly export',
    scheduleExpr: 'every day at 2am',
    scheduleTimezone: 'Europe/Berlin',
    sinkKind: 'webhook',
    sinkConfig: {
      url: SECRET_URL,
      method: 'PUT',
      headers: { Authorization: 'Bearer header-secret' },
      body: '{"key":"{{secrets.api_key}}"}',
    },
    retry: {
      max_attempts: 3,
      backoff: 'exponential',
      initial_interval_ms: 1000,
      max_interval_ms: 60000,
      multiplier: 2,
      jitter: 0.2,
    },
    timeoutMs: 30_000,
    ...overrides,
  } as DisplayableJob;
}

const snapshot = {
  jobId: 'job_1',
  workspaceId: 'ws_1',
  revision: 4,
  version: 2,
  misfirePolicy: 'fire_once',
} as JobSnapshot;
const run: RunWorkflowInput = {
  runId: 'run_1',
  jobId: 'job_1',
  workspaceId: 'ws_1',
  jobVersion: 2,
  scheduledAt: '2026-11-26T01:00:00.000Z',
  trigger: 'schedule',
};

/** Every text the Temporal Web UI is given about a job and its runs. */
function allTexts(d: DisplayableJob): string {
  const display = describeForTemporal(d);
  return [
    JSON.stringify(display),
    jobSummary(display),
    jobDetails(display, { ...snapshot, display }),
    runSummary(display, run),
    runDetails(display, run),
    attemptSummary(display, 2),
    attemptOutcome(display, 2, 'HTTP 503'),
  ].join('\n');
}

describe('describeForTemporal', () => {
  it('should name the job, its schedule and zone, and the sink by method and host', () => {
    expect(describeForTemporal(job())).toEqual({
      name: 'nightly export',
      schedule: 'every day at 2am',
      timezone: 'Europe/Berlin',
      sink: 'webhook',
      target: 'PUT hooks.example.com:8443',
      maxAttempts: 3,
      timeoutMs: 30_000,
    });
  });

  it('should never carry credentials, the path, the query, headers or the body of a webhook', () => {
    const texts = allTexts(job());
    for (const secret of [
      'alice',
      's3cr3t-pass',
      'tok_path',
      '/v1/hook',
      'token=',
      'qs-secret',
      'frag',
      'header-secret',
      'api_key',
    ]) {
      expect(texts).not.toContain(secret);
    }
    expect(texts).toContain('hooks.example.com');
  });

  it('should name a command by its program file only, never its directory, arguments or environment', () => {
    const command = job({
      sinkKind: 'command',
      sinkConfig: { argv: ['/opt/secret-dir/backup.sh', '--password=hunter2'], env: { TOKEN: 'env-secret' } },
    });
    expect(describeForTemporal(command).target).toBe('command backup.sh');
    const texts = allTexts(command);
    for (const secret of ['secret-dir', 'hunter2', '--password', 'env-secret', 'TOKEN']) {
      expect(texts).not.toContain(secret);
    }
  });

  it('should keep the summary on one line and bounded, whatever the name holds', () => {
    const display = describeForTemporal(job({ name: `two\nlines ${'x'.repeat(300)}` }));
    expect(display.name).not.toContain('\n');
    expect(display.name.length).toBeLessThanOrEqual(120);
    expect(jobSummary(display)).not.toContain('\n');
    expect(runSummary(display, run)).not.toContain('\n');
  });

  it('should default the method to POST and say ? for a URL it cannot read', () => {
    expect(sinkTarget('webhook', { url: 'https://hooks.example.com/x' })).toBe('POST hooks.example.com');
    expect(sinkTarget('webhook', { url: 'not a url' })).toBe('POST ?');
    expect(sinkTarget('command', { argv: [] })).toBe('command ?');
    expect(sinkTarget('pigeon', {})).toBe('pigeon');
  });
});

describe('Temporal Web UI texts', () => {
  const display = describeForTemporal(job());

  it('should summarize a job in one line: name, schedule and zone, sink and target', () => {
    expect(jobSummary(display)).toBe(
      'nightly export · every day at 2am (Europe/Berlin) · webhook PUT hooks.example.com:8443',
    );
  });

  it('should summarize a run by job, trigger, occurrence and target, and name the attempt activity', () => {
    expect(runSummary(display, run)).toBe(
      'nightly export · scheduled 2026-11-26T01:00:00.000Z · PUT hooks.example.com:8443',
    );
    expect(runSummary(display, { ...run, trigger: 'retry_manual' })).toContain('manual retry');
    expect(runSummary(undefined, run)).toBe('job_1 · scheduled 2026-11-26T01:00:00.000Z');
    expect(runDetails(display, { ...run, attemptsBefore: 1 })).toContain('**Attempts** 2 to 3');
    expect(attemptSummary(display, 1)).toBe('attempt 1 of 3 · PUT hooks.example.com:8443');
    expect(attemptOutcome(display, 2, 'HTTP 503')).toBe('attempt 2 of 3 · PUT hooks.example.com:8443 → HTTP 503');
  });
});
