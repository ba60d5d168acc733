import { useStack } from '../utils/stack';

/**
 * Issue 44 "every validation error at once": a job body with a missing name, a misspelled
 * schedule and a URL without a scheme (plus a retry policy and a timeout that are wrong) answers
 * ONE `400 validation_failed` naming every field, with every schedule error in `errors`, on each
 * endpoint that takes a job body: create, PATCH, PUT by key, apply (`jobs[i].` prefixed) and the
 * sink test of an unsaved body. Nothing is written.
 */
jest.setTimeout(180_000);

const BAD_SCHEDULE = { expr: 'every mondy at 9am' };
const BAD_SINK = { kind: 'webhook', config: { url: 'hooks.example.com/nightly' } };

/** Every stage refuses something: the body's own checks (name, timeout), schedule, sink, retry. */
const badBody = () => ({
  schedule: BAD_SCHEDULE,
  sink: BAD_SINK,
  retry: { initial_interval: '10m', max_interval: '1m' },
  timeout: 'soon',
});
const BAD_FIELDS = ['name', 'retry.initial_interval', 'schedule.expr', 'sink.config.url', 'timeout'];

const goodBody = (name: string) => ({
  name,
  schedule: { expr: 'every day at 9am' },
  sink: { kind: 'webhook', config: { url: 'https://hooks.example.com/nightly' } },
});

describe('every validation error at once (issue 44)', () => {
  const e2e = useStack({ worker: false });

  const jobCount = async () => (await e2e.api('GET', '/api/v1/jobs?limit=100')).body.data.length as number;

  /** The one answer: 400 with exactly these fields and the schedule's errors. */
  function expectAllAtOnce(
    answer: { status: number; body: any },
    fields: string[],
    scheduleErrors = true,
  ): Record<string, string> {
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_failed');
    expect(Object.keys(answer.body.error.fields).sort()).toEqual([...fields].sort());
    for (const message of Object.values(answer.body.error.fields)) {
      expect(typeof message).toBe('string');
      expect((message as string).length).toBeGreaterThan(0);
    }
    if (scheduleErrors) {
      // The spec's schedule error shape: every error of the expression, each with its message.
      expect(Array.isArray(answer.body.error.errors)).toBe(true);
      expect(answer.body.error.errors.length).toBeGreaterThan(0);
      for (const error of answer.body.error.errors) {
        expect(typeof error.message).toBe('string');
      }
      const expr = Object.keys(answer.body.error.fields).find((field) => field.endsWith('schedule.expr'))!;
      expect(answer.body.error.fields[expr]).toContain(answer.body.error.errors[0].message);
    }
    return answer.body.error.fields;
  }

  it('should name every refused field of a create in one 400 and create nothing', async () => {
    const before = await jobCount();
    const fields = expectAllAtOnce(await e2e.api('POST', '/api/v1/jobs', badBody()), BAD_FIELDS);
    expect(fields.name).toMatch(/required|string|empty/);
    expect(fields['retry.initial_interval']).toBe('must not exceed retry.max_interval');
    expect(await jobCount()).toBe(before);

    // The same body with an Idempotency-Key: refused the same way, and the key is free again.
    const keyed = await e2e.api('POST', '/api/v1/jobs', badBody(), { 'idempotency-key': 'all-errors-1' });
    expectAllAtOnce(keyed, BAD_FIELDS);
    const fixed = await e2e.api('POST', '/api/v1/jobs', goodBody('fixed'), { 'idempotency-key': 'all-errors-1' });
    expect(fixed.status).toBe(201);
    expect(await e2e.api('DELETE', `/api/v1/jobs/${fixed.body.id}`)).toMatchObject({ status: 204 });
  });

  it('should still report the schedule alone as before, and the stages a refused field feeds are skipped', async () => {
    // One stage failing keeps its own message.
    const schedule = await e2e.api('POST', '/api/v1/jobs', { ...goodBody('s'), schedule: BAD_SCHEDULE });
    expectAllAtOnce(schedule, ['schedule.expr']);
    expect(schedule.body.error.message).toBe('Invalid schedule');
    // A sink kind the body's checks refuse: no sink.config error is guessed for it; the rest still comes.
    const kind = await e2e.api('POST', '/api/v1/jobs', { schedule: BAD_SCHEDULE, sink: { kind: 7, config: {} } });
    expectAllAtOnce(kind, ['name', 'schedule.expr', 'sink.kind']);
  });

  it('should name every refused field of a PATCH in one 400 and change nothing', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', goodBody('patched'));
    expect(created.status).toBe(201);
    const patched = await e2e.api('PATCH', `/api/v1/jobs/${created.body.id}`, {
      name: '',
      schedule: BAD_SCHEDULE,
      sink: { config: { url: 'hooks.example.com/elsewhere' } },
      retry: { initial_interval: '10m', max_interval: '1m' },
      timeout: 'soon',
    });
    expectAllAtOnce(patched, BAD_FIELDS);
    const stored = (await e2e.api('GET', `/api/v1/jobs/${created.body.id}`)).body;
    expect(stored.version).toBe(created.body.version);
    expect(stored.name).toBe('patched');
    expect(stored.sink.config.url).toBe('https://hooks.example.com/nightly');

    // A refused body is refused whatever the id, as before.
    const missing = await e2e.api('PATCH', '/api/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV', { name: '' });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.error.fields)).toEqual(['name']);
  });

  it('should name every refused field of a PUT by key, the key mismatch included', async () => {
    const before = await jobCount();
    const answer = await e2e.api('PUT', '/api/v1/jobs/by-key/all-errors', { ...badBody(), key: 'another' });
    expectAllAtOnce(answer, [...BAD_FIELDS, 'key']);
    expect(await jobCount()).toBe(before);
  });

  it('should name every refused field of every job of an apply, prefixed jobs[i]., and apply nothing', async () => {
    const before = await jobCount();
    const answer = await e2e.api('POST', '/api/v1/jobs/apply', {
      managed_by: 'all-errors',
      jobs: [
        { ...goodBody('fine'), key: 'fine' },
        { ...badBody(), key: 'bad' },
        { ...goodBody('also bad'), key: 'also-bad', sink: BAD_SINK },
        null,
      ],
    });
    expectAllAtOnce(answer, [...BAD_FIELDS.map((field) => `jobs[1].${field}`), 'jobs[2].sink.config.url', 'jobs[3]']);
    expect(await jobCount()).toBe(before);
  });

  it('should name every refused field of a sink test of an unsaved body', async () => {
    expectAllAtOnce(await e2e.api('POST', '/api/v1/jobs/test', badBody()), BAD_FIELDS);
  });
});
