import { apiClient, startStack, type Stack } from '../utils/stack';

/** Plan limits on job create and update (issues #2, #3): 403 limit_exceeded with limit and value. */
describe('plan limits', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  const sink = { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } };

  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      config: { plans: { self_hosted: { max_jobs_per_workspace: 2, min_interval: '1m' } } },
    });
    api = apiClient(stack.baseUrl, stack.apiKey);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('should refuse a schedule firing more often than the plan minimum interval', async () => {
    const tooFast = await api('POST', '/api/v1/jobs', { name: 'fast', schedule: { expr: 'every 30 seconds' }, sink });
    expect(tooFast.status).toBe(403);
    expect(tooFast.body.error).toMatchObject({ code: 'limit_exceeded', limit: 'min_interval', value: '1m' });
    const quartz = await api('POST', '/api/v1/jobs', { name: 'fast', schedule: { expr: '*/10 * * * * ?' }, sink });
    expect(quartz.status).toBe(403);
    const ok = await api('POST', '/api/v1/jobs', { name: 'ok', schedule: { expr: 'every 5 minutes' }, sink });
    expect(ok.status).toBe(201);
    const patch = await api('PATCH', `/api/v1/jobs/${ok.body.id}`, { schedule: { expr: 'every 10 seconds' } });
    expect(patch.status).toBe(403);
    expect(patch.body.error.limit).toBe('min_interval');
    expect((await api('GET', `/api/v1/jobs/${ok.body.id}`)).body.version).toBe(1);
  });

  it('should refuse a job beyond the plan job count', async () => {
    const listed = await api('GET', '/api/v1/jobs');
    for (let i = listed.body.data.length; i < 2; i++) {
      expect((await api('POST', '/api/v1/jobs', { name: `j${i}`, schedule: { expr: 'hourly' }, sink })).status).toBe(
        201,
      );
    }
    const third = await api('POST', '/api/v1/jobs', { name: 'third', schedule: { expr: 'hourly' }, sink });
    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({ code: 'limit_exceeded', limit: 'max_jobs_per_workspace', value: 2 });
  });

  it('should answer 400 with structured errors for a schedule that never fires or is unknown', async () => {
    const never = await api('POST', '/api/v1/jobs', { name: 'never', schedule: { expr: '0 0 0 30 2 ?' }, sink });
    expect(never.status).toBe(400);
    expect(never.body.error.errors[0].kind).toBe('never_fires');
    const zone = await api('POST', '/api/v1/jobs', {
      name: 'zone',
      schedule: { expr: 'hourly', timezone: 'Mars/Olympus' },
      sink,
    });
    expect(zone.status).toBe(400);
    expect(zone.body.error.fields['schedule.timezone']).toBeDefined();
  });
});
