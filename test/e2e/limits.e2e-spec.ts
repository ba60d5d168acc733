import { useStack } from '../utils/stack';

/** Plan limits on job create and update (issues #2, #3): 403 limit_exceeded with limit and value. */
describe('plan limits', () => {
  const e2e = useStack({
    worker: false,
    config: { plans: { self_hosted: { max_jobs_per_workspace: 2, min_interval: '1m' } } },
  });
  const sink = { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } };

  it('should refuse a schedule firing more often than the plan minimum interval', async () => {
    const tooFast = await e2e.api('POST', '/api/v1/jobs', {
      name: 'fast',
      schedule: { expr: 'every 30 seconds' },
      sink,
    });
    expect(tooFast.status).toBe(403);
    expect(tooFast.body.error).toMatchObject({ code: 'limit_exceeded', limit: 'min_interval', value: '1m' });
    const quartz = await e2e.api('POST', '/api/v1/jobs', { name: 'fast', schedule: { expr: '*/10 * * * * ?' }, sink });
    expect(quartz.status).toBe(403);
    const ok = await e2e.api('POST', '/api/v1/jobs', { name: 'ok', schedule: { expr: 'every 5 minutes' }, sink });
    expect(ok.status).toBe(201);
    const patch = await e2e.api('PATCH', `/api/v1/jobs/${ok.body.id}`, { schedule: { expr: 'every 10 seconds' } });
    expect(patch.status).toBe(403);
    expect(patch.body.error.limit).toBe('min_interval');
    expect((await e2e.api('GET', `/api/v1/jobs/${ok.body.id}`)).body.version).toBe(1);
  });

  it('should refuse a job beyond the plan job count', async () => {
    const listed = await e2e.api('GET', '/api/v1/jobs');
    for (let i = listed.body.data.length; i < 2; i++) {
      expect(
        (await e2e.api('POST', '/api/v1/jobs', { name: `j${i}`, schedule: { expr: 'hourly' }, sink })).status,
      ).toBe(201);
    }
    const third = await e2e.api('POST', '/api/v1/jobs', { name: 'third', schedule: { expr: 'hourly' }, sink });
    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({ code: 'limit_exceeded', limit: 'max_jobs_per_workspace', value: 2 });
  });

  it('should answer 400 with structured errors for a schedule that never fires or is unknown', async () => {
    const never = await e2e.api('POST', '/api/v1/jobs', { name: 'never', schedule: { expr: '0 0 0 30 2 ?' }, sink });
    expect(never.status).toBe(400);
    expect(never.body.error.errors[0].kind).toBe('never_fires');
    const zone = await e2e.api('POST', '/api/v1/jobs', {
      name: 'zone',
      schedule: { expr: 'hourly', timezone: 'Mars/Olympus' },
      sink,
    });
    expect(zone.status).toBe(400);
    expect(zone.body.error.fields['schedule.timezone']).toBeDefined();
  });
});
