import { ValidationFailedError } from '@svc/common';
import fc from 'fast-check';
import {
  applyJobPatch,
  changesSinkKind,
  declaredSettings,
  type JobPatch,
  type JobSettings,
  JOB_DEFAULTS,
} from './job-patch';

// Issue #22 "edits never lose settings": the merge rule of PATCH /jobs/{id}, stated once.

const duration = fc.constantFrom('1s', '5s', '45s', '2m', '1h', '1h30m');
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(null));

const webhookConfig = fc.record(
  {
    url: fc.constantFrom('https://a.example.com/h', 'https://b.example.com/x'),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    headers: fc.dictionary(fc.constantFrom('X-A', 'X-B', 'X-Token'), fc.constantFrom('1', '{{secret.TOKEN}}')),
    body: fc.string({ maxLength: 20 }),
    success_codes: fc.oneof(fc.constant('2xx'), fc.array(fc.integer({ min: 200, max: 299 }), { minLength: 1 })),
    retry_on: fc.array(fc.constantFrom('5xx', 'network', 'timeout', 429), { maxLength: 4 }),
    follow_redirects: fc.boolean(),
  },
  { requiredKeys: ['url'] },
);

const schedule = fc.record({
  expr: fc.constantFrom('every 5 minutes', '0 0 12 * * ?', 'every day at 9am'),
  kind: fc.constantFrom('natural', 'quartz', 'cron', 'rrule'),
  timezone: fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kolkata'),
  starts_at: nullable(fc.constant('2030-01-01T00:00:00.000Z')),
  ends_at: nullable(fc.constant('2031-01-01T00:00:00.000Z')),
  count: nullable(fc.integer({ min: 1, max: 1000 })),
});

const retry = fc.record({
  max_attempts: fc.integer({ min: 1, max: 20 }),
  backoff: fc.constantFrom('exponential', 'linear', 'fixed'),
  initial_interval: duration,
  max_interval: duration,
  multiplier: fc.integer({ min: 1, max: 10 }),
  jitter: fc.double({ min: 0, max: 1, noNaN: true }),
});

const stored: fc.Arbitrary<JobSettings> = fc.record({
  name: fc.string({ minLength: 1, maxLength: 10 }),
  description: fc.string({ maxLength: 10 }),
  tags: fc.array(fc.constantFrom('a', 'b', 'c')),
  schedule,
  sink: fc.record({ kind: fc.constant('webhook'), config: webhookConfig }),
  retry,
  timeout: duration,
  sla_threshold: nullable(duration),
  misfire_policy: fc.constantFrom('fire_once', 'skip', 'fire_all'),
  overlap_policy: fc.constantFrom('allow', 'skip', 'queue', 'cancel_previous'),
  auto_disable_threshold: nullable(fc.integer({ min: 0, max: 1000 })),
  start_window: nullable(duration),
  max_concurrent_runs: nullable(fc.integer({ min: 1, max: 1000 })),
});

/** Any subset of the create fields, each with a value or (where allowed) null. */
const patch: fc.Arbitrary<JobPatch> = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 10 }),
    description: nullable(fc.string({ maxLength: 10 })),
    tags: nullable(fc.array(fc.constantFrom('x', 'y'))),
    schedule: fc.record(
      {
        expr: fc.constantFrom('every 10 minutes', '0 30 * * * ?'),
        kind: nullable(fc.constantFrom('auto', 'natural', 'quartz')),
        timezone: nullable(fc.constantFrom('UTC', 'America/New_York')),
        starts_at: nullable(fc.constant('2032-01-01T00:00:00.000Z')),
        ends_at: nullable(fc.constant('2033-01-01T00:00:00.000Z')),
        count: nullable(fc.integer({ min: 1, max: 5 })),
      },
      { requiredKeys: [] },
    ),
    sink: fc.record(
      {
        config: fc.record(
          {
            url: fc.constant('https://c.example.com/new'),
            method: nullable(fc.constantFrom('GET', 'PUT')),
            headers: nullable(fc.dictionary(fc.constantFrom('X-C'), fc.constant('2'))),
            body: nullable(fc.string({ maxLength: 5 })),
            success_codes: nullable(fc.constant([200, 204])),
            retry_on: nullable(fc.constant(['timeout'])),
            follow_redirects: nullable(fc.boolean()),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
    retry: nullable(
      fc.record(
        {
          max_attempts: nullable(fc.integer({ min: 1, max: 20 })),
          backoff: nullable(fc.constantFrom('linear', 'fixed')),
          initial_interval: nullable(duration),
          max_interval: nullable(duration),
          multiplier: nullable(fc.integer({ min: 1, max: 10 })),
          jitter: nullable(fc.constantFrom(0, 0.5, 1)),
        },
        { requiredKeys: [] },
      ),
    ),
    timeout: nullable(duration),
    sla_threshold: nullable(duration),
    misfire_policy: nullable(fc.constantFrom('skip', 'fire_all')),
    overlap_policy: nullable(fc.constantFrom('queue', 'skip')),
    auto_disable_threshold: nullable(fc.integer({ min: 0, max: 50 })),
    start_window: nullable(duration),
    max_concurrent_runs: nullable(fc.integer({ min: 1, max: 50 })),
  },
  { requiredKeys: [] },
);

const TOP_LEVEL = [
  'description',
  'tags',
  'timeout',
  'sla_threshold',
  'misfire_policy',
  'overlap_policy',
  'auto_disable_threshold',
] as const;

/** The value a field of an object ends with: absent keeps, null takes the default, a value wins. */
function expectField(result: unknown, storedValue: unknown, patched: unknown, defaultValue: unknown) {
  if (patched === undefined) {
    expect(result).toEqual(storedValue);
  } else if (patched === null) {
    expect(result).toEqual(defaultValue);
  } else {
    expect(result).toEqual(patched);
  }
}

describe('applyJobPatch (PATCH /jobs/{id} merge rule, issue #22)', () => {
  it('should return the stored job unchanged for an empty PATCH', () => {
    fc.assert(fc.property(stored, (s) => expect(applyJobPatch(s, {})).toEqual(s)));
  });

  it('should equal stored ⊕ patch field by field: absent kept, value wins, null the default', () => {
    fc.assert(
      fc.property(stored, patch, (s, p) => {
        const result = applyJobPatch(s, p);
        expect(result.name).toBe(p.name ?? s.name);
        for (const key of TOP_LEVEL) {
          expectField(result[key], s[key], p[key], JOB_DEFAULTS[key]);
        }
        for (const key of Object.keys(s.schedule) as Array<keyof JobSettings['schedule']>) {
          if (key === 'kind' && p.schedule?.expr !== undefined && p.schedule.kind === undefined) {
            expect(result.schedule.kind).toBe('auto'); // a new expression is detected again
            continue;
          }
          const defaults = JOB_DEFAULTS.schedule as Record<string, unknown>;
          expectField(result.schedule[key], s.schedule[key], p.schedule?.[key], defaults[key]);
        }
        for (const key of Object.keys(s.retry) as Array<keyof JobSettings['retry']>) {
          const patched = p.retry === null ? null : p.retry?.[key];
          expectField(result.retry[key], s.retry[key], patched, JOB_DEFAULTS.retry[key]);
        }
        const configKeys = new Set([...Object.keys(s.sink.config), ...Object.keys(p.sink?.config ?? {})]);
        for (const key of configKeys) {
          // In sink.config, null removes the field: the sink's own default then applies.
          expectField(result.sink.config[key], s.sink.config[key], p.sink?.config?.[key], undefined);
          if (p.sink?.config?.[key] === null) {
            expect(key in result.sink.config).toBe(false);
          }
        }
        expect(result.sink.kind).toBe(s.sink.kind);
      }),
    );
  });

  it('should be idempotent: the same PATCH twice gives what it gave once', () => {
    fc.assert(
      fc.property(stored, patch, (s, p) => {
        const once = applyJobPatch(s, p);
        expect(applyJobPatch(once, p)).toEqual(once);
      }),
    );
  });

  it('should not modify the stored settings or the patch', () => {
    fc.assert(
      fc.property(stored, patch, (s, p) => {
        const before = structuredClone({ s, p });
        applyJobPatch(s, p);
        expect({ s, p }).toEqual(before);
      }),
    );
  });

  const job: JobSettings = {
    name: 'report',
    description: 'd',
    tags: ['t'],
    schedule: {
      expr: 'every 5 minutes',
      kind: 'natural',
      timezone: 'Europe/Berlin',
      starts_at: null,
      ends_at: null,
      count: 3,
    },
    sink: {
      kind: 'webhook',
      config: {
        url: 'https://a.example.com/h',
        method: 'PUT',
        headers: { Authorization: 'Bearer {{secret.TOKEN}}', 'X-A': '1' },
        success_codes: [200, 202],
        retry_on: ['timeout'],
        follow_redirects: true,
      },
    },
    retry: JOB_DEFAULTS.retry,
    timeout: '45s',
    sla_threshold: '2m',
    misfire_policy: 'skip',
    overlap_policy: 'queue',
    auto_disable_threshold: 4,
    start_window: null,
    max_concurrent_runs: null,
  };

  it('should keep every webhook option, secret reference included, when only the URL changes', () => {
    const result = applyJobPatch(job, { sink: { config: { url: 'https://b.example.com/new' } } });
    expect(result.sink.config).toEqual({ ...job.sink.config, url: 'https://b.example.com/new' });
  });

  it('should replace a map inside sink.config whole (a header is removed by leaving it out)', () => {
    const result = applyJobPatch(job, { sink: { config: { headers: { 'X-A': '2' } } } });
    expect(result.sink.config.headers).toEqual({ 'X-A': '2' });
  });

  it('should refuse a sink kind change without the new kind’s configuration, naming sink.config', () => {
    const patchKind = { sink: { kind: 'command' } };
    expect(changesSinkKind(job, patchKind)).toBe(true);
    let thrown: unknown;
    try {
      applyJobPatch(job, patchKind);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationFailedError);
    expect((thrown as ValidationFailedError).body).toMatchObject({
      code: 'validation_failed',
      fields: { 'sink.config': expect.stringContaining('command') },
    });
  });

  it('should take the new kind’s configuration alone on a kind change, never the old kind’s fields', () => {
    const result = applyJobPatch(job, { sink: { kind: 'command', config: { argv: ['/bin/true'], cwd: null } } });
    expect(result.sink).toEqual({ kind: 'command', config: { argv: ['/bin/true'] } });
  });

  it('should treat a kind equal to the stored one as no kind change', () => {
    const patchSame = { sink: { kind: 'webhook', config: { method: null } } };
    expect(changesSinkKind(job, patchSame)).toBe(false);
    const { method: _removed, ...rest } = job.sink.config;
    expect(applyJobPatch(job, patchSame).sink.config).toEqual(rest);
  });

  it('should detect the format again when the expression changes without a kind, and keep it otherwise', () => {
    expect(applyJobPatch(job, { schedule: { expr: '0 0 12 * * ?' } }).schedule).toMatchObject({
      expr: '0 0 12 * * ?',
      kind: 'auto',
      timezone: 'Europe/Berlin',
      count: 3,
    });
    expect(applyJobPatch(job, { schedule: { timezone: 'UTC' } }).schedule.kind).toBe('natural');
    expect(applyJobPatch(job, { schedule: { count: null, timezone: null } }).schedule).toMatchObject({
      count: null,
      timezone: 'UTC',
    });
  });

  it('should reset the whole retry policy on retry: null and one field on retry.field: null', () => {
    const custom = { ...job, retry: { ...JOB_DEFAULTS.retry, max_attempts: 9, jitter: 0 } };
    expect(applyJobPatch(custom, { retry: null }).retry).toEqual(JOB_DEFAULTS.retry);
    expect(applyJobPatch(custom, { retry: { jitter: null } }).retry).toEqual({ ...custom.retry, jitter: 0.2 });
  });
});

describe('declaredSettings (a create is a PATCH over JOB_DEFAULTS, issue 50)', () => {
  const sink = { kind: 'webhook', config: { url: 'https://a.example.com/h' } };

  it('should give every field left out its default from the one table', () => {
    const settings = declaredSettings({ name: 'n', schedule: { expr: 'every 5 minutes' }, sink });
    const { name, schedule: s, sink: k, ...rest } = settings;
    expect([name, s.expr, k]).toEqual(['n', 'every 5 minutes', sink]);
    const { schedule: defaultSchedule, ...defaults } = JOB_DEFAULTS;
    expect(rest).toEqual(defaults);
    expect(s).toEqual({ ...defaultSchedule, expr: 'every 5 minutes' });
  });

  it('should treat a field given null as left out, and a partial retry as merged over the default', () => {
    const settings = declaredSettings({
      name: 'n',
      schedule: { expr: '0 9 * * *', timezone: null, kind: 'cron' },
      sink,
      timeout: null,
      misfire_policy: 'skip',
      retry: { max_attempts: 7 },
    });
    expect(settings.timeout).toBe(JOB_DEFAULTS.timeout);
    expect(settings.misfire_policy).toBe('skip');
    expect(settings.schedule).toMatchObject({ kind: 'cron', timezone: JOB_DEFAULTS.schedule.timezone });
    expect(settings.retry).toEqual({ ...JOB_DEFAULTS.retry, max_attempts: 7 });
  });

  it('should never share the defaults table’s arrays with a job', () => {
    const settings = declaredSettings({ name: 'n', schedule: { expr: 'every 5 minutes' }, sink });
    settings.tags.push('x');
    settings.schedule.exclude_calendars!.push('y');
    expect([JOB_DEFAULTS.tags, JOB_DEFAULTS.schedule.exclude_calendars]).toEqual([[], []]);
  });
});
