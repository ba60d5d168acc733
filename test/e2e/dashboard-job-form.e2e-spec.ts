import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEV_SIGN_IN, launchDashboardChromium, signedInPage } from '../utils/dashboard';
import { useStackAndReceiver } from '../utils/stack';
import { JOB_SETTING_FIELDS } from '@svc/common/job-settings';
import { fullWebhookJob } from '../fixtures/full-webhook-job';

/**
 * Issue #22 "edits never lose settings", in Debian's Chromium (as dashboard.e2e-spec.ts drives
 * it): a job created through the API with a non-default value in every field is opened in the
 * dashboard's form, renamed and saved, and reads back through the API identical apart from its
 * name; the form's PATCH carries only the name. The same for a command job (command sinks are on
 * in this stack), and a command job created from the form.
 */
const SCREENSHOTS = resolve(__dirname, '../../docs/screenshots');

jest.setTimeout(180_000);

const settingsOf = (job: Record<string, unknown>) =>
  Object.fromEntries(JOB_SETTING_FIELDS.map((key) => [key, job[key]]));

describe('dashboard job form in Chromium (issue #22)', () => {
  const e2e = useStackAndReceiver({
    worker: false,
    config: {
      auth: DEV_SIGN_IN,
      sinks: { command: { enabled: true } },
    },
  });
  let browser: Browser;
  let page: Page;
  /** Bodies of the job PATCH/POST requests the page sent. */
  const sent: Array<{ method: string; url: string; body: unknown }> = [];

  beforeAll(async () => {
    browser = await launchDashboardChromium();
    expect((await e2e.api('PUT', '/api/v1/secrets/TOKEN', { value: 's3cr3t' })).status).toBe(201);
    const context = { viewport: { width: 1280, height: 900 }, timezoneId: 'America/New_York' };
    page = await signedInPage(browser, e2e.stack.baseUrl, 'ada@example.com', context, (opened) =>
      opened.on('request', (request) => {
        if (/\/api\/v1\/jobs/.test(request.url()) && ['POST', 'PATCH'].includes(request.method())) {
          sent.push({ method: request.method(), url: request.url(), body: request.postDataJSON() });
        }
      }),
    );
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the job's edit form, renames it and saves; returns what the page sent. */
  async function renameInForm(id: string, from: string, to: string) {
    await page.goto(`${e2e.stack.baseUrl}/jobs/${id}/edit`);
    await page.getByRole('heading', { name: `Edit ${from}` }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(to);
    sent.length = 0;
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: to, exact: true }).waitFor();
    return [...sent];
  }

  it('should show every setting of a webhook job and save a rename as a PATCH of the name alone', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', fullWebhookJob('full webhook', `${e2e.receiver.url}/full`));
    expect(created.status).toBe(201);
    const before = (await e2e.api('GET', `/api/v1/jobs/${created.body.id}`)).body;

    await page.goto(`${e2e.stack.baseUrl}/jobs/${before.id}/edit`);
    await page.getByRole('heading', { name: 'Edit full webhook' }).waitFor();
    // Every setting is on the form, as stored.
    const value = (label: string) => page.getByLabel(label, { exact: true }).inputValue();
    expect({
      format: await value('Format'),
      timezone: await value('Time zone'),
      startsAt: await value('Starts at'),
      endsAt: await value('Ends at'),
      count: await value('Occurrences'),
      misfire: await value('Misfire policy'),
      overlap: await value('Overlap policy'),
      timeout: await value('Timeout'),
      sla: await value('SLA threshold'),
      autoDisable: await value('Auto-disable after failures'),
      maxAttempts: await value('Max attempts'),
      backoff: await value('Backoff'),
      initial: await value('Initial interval'),
      max: await value('Max interval'),
      multiplier: await value('Multiplier'),
      jitter: await value('Jitter'),
      sinkKind: await value('Sink kind'),
      url: await value('URL'),
      method: await value('Method'),
      successCodes: await value('Success codes'),
      retryOn: await value('Retry on'),
      // PostgreSQL's jsonb keeps its own key order: the lines, in any order.
      headers: (await value('Headers')).split('\n').sort(),
      body: await value('Body'),
    }).toEqual({
      format: 'natural',
      timezone: 'Europe/Berlin',
      startsAt: '2030-01-01T00:00:00.000Z',
      endsAt: '2031-01-01T00:00:00.000Z',
      count: '40',
      misfire: 'fire_all',
      overlap: 'queue',
      timeout: '45s',
      sla: '3m',
      autoDisable: '4',
      maxAttempts: '7',
      backoff: 'linear',
      initial: '5s',
      max: '2m',
      multiplier: '3',
      jitter: '0.5',
      sinkKind: 'webhook',
      url: `${e2e.receiver.url}/full`,
      method: 'PUT',
      successCodes: '200, 202',
      retryOn: 'timeout, 503',
      headers: ['Authorization: Bearer {{secret.TOKEN}}', 'X-Run: {{run.id}}'],
      body: '{"job":"{{job.name}}"}',
    });
    expect(await page.getByLabel('Follow redirects').isChecked()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/job-form-edit.png`, fullPage: true });

    const requests = await renameInForm(before.id, 'full webhook', 'full webhook renamed');
    expect(requests).toEqual([
      { method: 'PATCH', url: `${e2e.stack.baseUrl}/api/v1/jobs/${before.id}`, body: { name: 'full webhook renamed' } },
    ]);
    const after = (await e2e.api('GET', `/api/v1/jobs/${before.id}`)).body;
    expect(settingsOf(after)).toEqual({ ...settingsOf(before), name: 'full webhook renamed' });
    expect(after.version).toBe(before.version + 1);
  });

  it('should save one changed webhook option without touching the others', async () => {
    const job = (await e2e.api('GET', '/api/v1/jobs?q=full webhook')).body.data[0];
    await page.goto(`${e2e.stack.baseUrl}/jobs/${job.id}/edit`);
    await page.getByRole('heading', { name: `Edit ${job.name}` }).waitFor();
    await page.getByLabel('Retry on', { exact: true }).fill('5xx, network');
    await page.getByLabel('Jitter', { exact: true }).fill('0');
    sent.length = 0;
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: job.name, exact: true }).waitFor();
    expect(sent.map((r) => r.body)).toEqual([
      { retry: { jitter: 0 }, sink: { config: { retry_on: ['5xx', 'network'] } } },
    ]);
    const after = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(settingsOf(after)).toEqual({
      ...settingsOf(job),
      retry: { ...job.retry, jitter: 0 },
      sink: { kind: 'webhook', config: { ...job.sink.config, retry_on: ['5xx', 'network'] } },
    });
  });

  it('should rename a command job from the form and read it back identical apart from its name', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'full command',
      description: 'a command job',
      tags: ['ops'],
      schedule: { expr: '0 15 10 ? * MON-FRI', kind: 'quartz', timezone: 'Asia/Kolkata', count: 9 },
      sink: {
        kind: 'command',
        config: { argv: ['/bin/echo', 'two words'], env: { MODE: 'full' }, cwd: '/tmp', retry_on_exit_codes: [75, 3] },
      },
      retry: {
        max_attempts: 2,
        backoff: 'fixed',
        initial_interval: '1s',
        max_interval: '1s',
        multiplier: 1,
        jitter: 0,
      },
      timeout: '2m',
      sla_threshold: '1h',
      misfire_policy: 'skip',
      overlap_policy: 'cancel_previous',
      auto_disable_threshold: 0,
    });
    expect(created.status).toBe(201);
    const before = (await e2e.api('GET', `/api/v1/jobs/${created.body.id}`)).body;
    await page.goto(`${e2e.stack.baseUrl}/jobs/${before.id}/edit`);
    await page.getByRole('heading', { name: 'Edit full command' }).waitFor();
    expect(await page.getByLabel('Command', { exact: true }).inputValue()).toBe('/bin/echo\ntwo words');
    expect(await page.getByLabel('Environment', { exact: true }).inputValue()).toBe('MODE=full');
    expect(await page.getByLabel('Retryable exit codes', { exact: true }).inputValue()).toBe('75, 3');

    const requests = await renameInForm(before.id, 'full command', 'full command renamed');
    expect(requests.map((r) => r.body)).toEqual([{ name: 'full command renamed' }]);
    const after = (await e2e.api('GET', `/api/v1/jobs/${before.id}`)).body;
    expect(settingsOf(after)).toEqual({ ...settingsOf(before), name: 'full command renamed' });
  });

  it('should create a command job from the form where the server enables the command sink', async () => {
    await page.goto(`${e2e.stack.baseUrl}/jobs/new`);
    await page.getByRole('heading', { name: 'New job' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('from the form');
    await page.getByLabel('Schedule', { exact: true }).fill('every day at 6am');
    await page.getByLabel('Sink kind').selectOption('command');
    await page.getByLabel('Command', { exact: true }).fill('/usr/bin/env\n--ignore-environment');
    await page.getByLabel('Retryable exit codes', { exact: true }).fill('75');
    sent.length = 0;
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.getByRole('heading', { name: 'from the form', exact: true }).waitFor();
    const id = page.url().split('/jobs/')[1];
    const job = (await e2e.api('GET', `/api/v1/jobs/${id}`)).body;
    expect(job.sink).toEqual({
      kind: 'command',
      config: { argv: ['/usr/bin/env', '--ignore-environment'], retry_on_exit_codes: [75] },
    });
    expect(job.signing_secret).toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  // Issue 44: one request, and every field the server refuses shown under its input at once.
  it('should show every refused field of a new job at once, each under its input', async () => {
    await page.goto(`${e2e.stack.baseUrl}/jobs/new`);
    await page.getByRole('heading', { name: 'New job' }).waitFor();
    await page.getByLabel('Schedule', { exact: true }).fill('every mondy at 9am');
    await page.getByLabel('URL', { exact: true }).fill('hooks.example.com/nightly');
    sent.length = 0;
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('#job-name-error').waitFor();
    expect(sent).toHaveLength(1);
    // The API's own answer to what the form sent: its three fields are on the page.
    const answer = await e2e.api('POST', '/api/v1/jobs', sent[0].body);
    expect(answer.status).toBe(400);
    const fields = answer.body.error.fields as Record<string, string>;
    expect(Object.keys(fields).sort()).toEqual(['name', 'schedule.expr', 'sink.config.url']);
    expect(await page.locator('#job-name-error').innerText()).toBe(fields.name);
    expect(await page.locator('#job-sink-config-url-error').innerText()).toBe(fields['sink.config.url']);
    await page.locator('p.error', { hasText: fields['schedule.expr'] }).first().waitFor();
  });

  // Issue 28: a registered kind without controls of its own, from its fields in /features.
  it('should create a temporal_workflow job from the form, naming bad fields before sending', async () => {
    await page.goto(`${e2e.stack.baseUrl}/jobs/new`);
    await page.getByRole('heading', { name: 'New job' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('start my workflow');
    await page.getByLabel('Schedule', { exact: true }).fill('every day at 7am');
    await page.getByLabel('Sink kind').selectOption('temporal_workflow');
    await page.getByLabel('Arguments (JSON)').fill('[{"day": "{{run.scheduled_at}}"');
    sent.length = 0;
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.getByText('must be valid JSON').waitFor();
    expect(await page.getByText('is required').count()).toBe(2); // workflow type, task queue
    expect(sent).toHaveLength(0);

    await page.getByLabel('Workflow type *').fill('NightlyReport');
    await page.getByLabel('Task queue *').fill('has spaces');
    await page.getByLabel('Arguments (JSON)').fill('[{"day": "{{run.scheduled_at}}"}]');
    await page.getByLabel('Wait for').selectOption('completed');
    await page.getByRole('button', { name: 'Create job' }).click();
    // The server's 400 lands under the field it names.
    await page.locator('#job-sink-config-task-queue-error', { hasText: 'must match pattern' }).waitFor();
    await page.getByLabel('Task queue *').fill('reports');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.getByRole('heading', { name: 'start my workflow', exact: true }).waitFor();
    const id = page.url().split('/jobs/')[1];
    const job = (await e2e.api('GET', `/api/v1/jobs/${id}`)).body;
    expect(job.sink).toEqual({
      kind: 'temporal_workflow',
      config: {
        workflow_type: 'NightlyReport',
        task_queue: 'reports',
        namespace: 'default',
        args: [{ day: '{{run.scheduled_at}}' }],
        workflow_id: 'svc-{{workspace.id}}-{{run.id}}',
        wait: 'completed',
      },
    });
    const requests = await renameInForm(id, 'start my workflow', 'start my workflow renamed');
    expect(requests.map((r) => r.body)).toEqual([{ name: 'start my workflow renamed' }]);
  });

  it('should set a start window and a run cap from the form and show them on the job page (issue 46)', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'spread from the form',
      schedule: { expr: 'every hour' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/spread` } },
    });
    expect(created.status).toBe(201);
    await page.goto(`${e2e.stack.baseUrl}/jobs/${created.body.id}/edit`);
    await page.getByRole('heading', { name: 'Edit spread from the form' }).waitFor();
    expect(await page.getByLabel('Start window', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('Start window', { exact: true }).fill('5m');
    await page.getByLabel('Max concurrent runs', { exact: true }).fill('3');
    sent.length = 0;
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'spread from the form', exact: true }).waitFor();
    expect(sent.map((r) => r.body)).toEqual([{ start_window: '5m', max_concurrent_runs: 3 }]);
    const job = (await e2e.api('GET', `/api/v1/jobs/${created.body.id}`)).body;
    expect(job).toMatchObject({ start_window: '5m', max_concurrent_runs: 3 });
    // The job page shows the window with the job's offset, and the cap.
    await page.getByText(/^5m: fires .* after each occurrence$/).waitFor();
    await page.getByText('allow, at most 3 in flight').waitFor();
  });
});
