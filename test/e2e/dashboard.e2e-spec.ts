import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEV_SIGN_IN, launchDashboardChromium, overflowing } from '../utils/dashboard';
import { WebhookReceiver, waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * The dashboard in a real browser (issue #11): Debian's Chromium driven by playwright-core against
 * the API process, a real worker on Temporal and a loopback webhook receiver. Sign in, create a
 * job from a schedule with a typo (underlined, suggestion clicked, preview shown), trigger it and
 * watch the run and its attempt arrive, follow the run to Temporal, rotate the signing secret,
 * create an API key that is shown once, and see cookie mutations without the CSRF token refused.
 * Screenshots of the main pages go to docs/screenshots/ (shown in the README).
 */
const SCREENSHOTS = resolve(__dirname, '../../docs/screenshots');

jest.setTimeout(240_000);

describe('dashboard in Chromium', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  /** Stands in for the Temporal Web UI: records the page the dashboard's link opens. */
  let temporalUi: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    // Both are preconditions of the test, reported as failures rather than skipped.
    browser = await launchDashboardChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    receiver = await WebhookReceiver.start();
    temporalUi = await WebhookReceiver.start();
    temporalUi.respondWith(() => ({
      status: 200,
      body: '<title>Temporal</title>',
      headers: { 'content-type': 'text/html' },
    }));
    stack = await startStack({
      config: {
        auth: DEV_SIGN_IN,
        temporal: { ui_url: temporalUi.url },
      },
    });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      timezoneId: 'America/New_York',
    });
    page = await context.newPage();
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(stack.baseUrl) && !url.startsWith(temporalUi.url) && !url.startsWith('data:')) {
        foreignRequests.push(url);
      }
    });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.stop();
    await temporalUi?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  const api = () => apiClient(stack.baseUrl, stack.apiKey);
  let jobId: string;
  let firstSecret: string;
  let runId: string;

  it('should serve the dashboard at / with a strict CSP and sign in with dev login', async () => {
    const response = await page.goto(stack.baseUrl + '/');
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('sign-in');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    expect(await page.locator('.user').textContent()).toBe('ada');
    expect(await page.locator('.workspace-name').textContent()).toBe('acme');
  });

  it('should underline a typo in the schedule at the exact characters, apply the suggestion and preview', async () => {
    await page.getByRole('link', { name: 'New job' }).click();
    await page.getByRole('heading', { name: 'New job' }).waitFor();
    await page.getByLabel('Name').fill('Nightly report');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    // "évery": the API reports bytes 0..6 (é is two bytes); the underline must cover exactly "évery".
    await page.getByLabel('Schedule', { exact: true }).fill('évery day at 9am');
    const mark = page.locator('mark.schedule-error');
    await mark.waitFor();
    expect(await mark.allTextContents()).toEqual(['évery']);
    expect(await page.getByLabel('Schedule', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    const suggestion = page.getByRole('button', { name: 'Use “every”' });
    await suggestion.waitFor();
    await shot('job-form-error');

    await suggestion.click();
    expect(await page.getByLabel('Schedule', { exact: true }).inputValue()).toBe('every day at 9am');
    await page.getByTestId('schedule-description').waitFor();
    expect(await mark.count()).toBe(0);
    const fireTimes = page.getByTestId('fire-times');
    await fireTimes.waitFor();
    expect(await fireTimes.locator('tbody tr').count()).toBe(5);
    // Both zones: the job's (Berlin, 09:00) and the viewer's (New York).
    expect(await fireTimes.locator('th').allTextContents()).toEqual([
      'In the job’s zone (Europe/Berlin)',
      'Your time (America/New_York)',
    ]);
    expect(await fireTimes.locator('tbody tr').first().locator('td').first().textContent()).toContain('09:00:00');

    await page.getByLabel('URL').fill(`${receiver.url}/hooks/nightly`);
    await shot('job-form');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.getByRole('heading', { name: 'Nightly report' }).waitFor();
    jobId = page.url().split('/jobs/')[1];
    expect(jobId).toMatch(/^job_/);
    firstSecret = (await page.getByTestId('one-time-secret').textContent())!;
    expect(firstSecret).toMatch(/^whsec_/);
    expect(await page.getByTestId('fire-times').locator('tbody tr').count()).toBe(5);
    // Issue 44: a job left at the server's auto-disable default says what that default is.
    const defaults = (await api()('GET', '/api/v1/dashboard/config')).body.job_defaults;
    expect(defaults.auto_disable_threshold).toBeGreaterThan(1);
    expect(await page.getByTestId('delivery').textContent()).toContain(
      `Auto-disableserver default: after ${defaults.auto_disable_threshold} failed runs in a row`,
    );
  });

  it('should trigger the job and show the run with its attempt as the worker delivers it', async () => {
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Trigger now' }).click();
    await page.getByText('Triggered: the run appears below').waitFor();
    const runs = page.getByTestId('runs');
    await runs.locator('tbody tr .badge.succeeded').waitFor({ timeout: 60_000 });
    expect(receiver.forJob(jobId)).toHaveLength(1);
    await shot('job-detail');

    await runs.locator('tbody tr a').first().click();
    await page.getByRole('heading', { name: /^Run run_/ }).waitFor();
    runId = page.url().split('/runs/')[1];
    const attempts = page.getByTestId('attempts');
    // The run and its job load separately: "1 of N" once the job's retry policy has arrived.
    await attempts
      .locator('tbody tr')
      .first()
      .locator('td', { hasText: /^1 of \d+$/ })
      .waitFor();
    const cells = await attempts.locator('tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual([expect.stringMatching(/^1 of \d+$/), 'success', '200']);
    expect(cells[5]).toContain(`POST ${receiver.url}/hooks/nightly`);
    await shot('run-detail');
  });

  it('should link the run to its workflow in the Temporal Web UI', async () => {
    const link = page.getByTestId('temporal-link');
    const expected = `${temporalUi.url}/namespaces/default/workflows/${runId}`;
    expect(await link.getAttribute('href')).toBe(expected);
    const [popup] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe(expected);
    expect(temporalUi.requests.map((r) => r.url)).toContain(`/namespaces/default/workflows/${runId}`);
    await popup.close();
  });

  it('should show the Stuck runs page from the main navigation, with none while every run progresses', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stuck runs' }).click();
    await page.getByRole('heading', { name: 'Stuck runs' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/runs/stuck');
    await page.getByText('No stuck runs.').waitFor();
  });

  it('should rotate the signing secret and show the new one once', async () => {
    await page.goto(`${stack.baseUrl}/jobs/${jobId}`);
    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    const secret = page.getByTestId('one-time-secret');
    await secret.waitFor();
    const rotated = (await secret.textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(firstSecret);
    await page.reload();
    await page.getByRole('heading', { name: 'Nightly report' }).waitFor();
    expect(await page.getByTestId('one-time-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(rotated);
  });

  it('should skip an upcoming occurrence from the job page with a note, and undo it (issue 45)', async () => {
    await page.goto(`${stack.baseUrl}/jobs/${jobId}`);
    const rows = page.getByTestId('fire-times').locator('tbody tr');
    await rows.first().waitFor();
    page.once('dialog', (dialog) => void dialog.accept('bank holiday'));
    await rows
      .nth(1)
      .getByRole('button', { name: /^Skip / })
      .click();
    await page.getByText('Skipped: bank holiday').waitFor();
    const job = (await api()('GET', `/api/v1/jobs/${jobId}`)).body;
    expect(job.skipped_occurrences).toEqual([expect.objectContaining({ at: job.next_runs[1], note: 'bank holiday' })]);
    await rows
      .nth(1)
      .getByRole('button', { name: /^Undo the skip of / })
      .click();
    await page.getByText('Skipped: bank holiday').waitFor({ state: 'detached' });
    expect((await api()('GET', `/api/v1/jobs/${jobId}`)).body.skipped_occurrences).toEqual([]);
  });

  it('should create an API key, show it once, and list only its prefix afterwards', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('ci pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('one-time-secret');
    await shown.waitFor();
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^sjs_[0-9A-Za-z]{40}$/);
    await shot('settings-api-keys');
    expect((await apiClient(stack.baseUrl, key)('GET', '/api/v1/jobs')).status).toBe(200);

    await page.reload();
    await page.getByTestId('api-keys').waitFor();
    const html = await page.content();
    expect(html).not.toContain(key);
    expect(html).toContain(`${key.slice(0, 12)}…`);
  });

  it('should store a secret without ever showing its value, and chart usage and stats', async () => {
    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByLabel('Name').fill('API_TOKEN');
    await page.getByLabel('Value').fill('dashboard-secret-value-7f3a');
    await page.getByRole('button', { name: 'Save secret' }).click();
    await page.getByText('Saved API_TOKEN.').waitFor();
    await page.getByRole('cell', { name: 'API_TOKEN', exact: true }).waitFor();
    expect(await page.content()).not.toContain('dashboard-secret-value-7f3a');

    await page.getByRole('link', { name: 'Usage and stats' }).click();
    await page.getByRole('img', { name: 'Runs per status' }).waitFor();
    await page.getByText(/1 succeeded, 0 failed of 1/).waitFor();
    await shot('settings-usage-stats');
  });

  it('should refuse a cookie-authenticated mutation without X-CSRF-Token', async () => {
    const refused = await page.evaluate(async () => {
      const response = await fetch('/api/v1/jobs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'forged',
          schedule: { expr: 'every day at 9am' },
          sink: { kind: 'webhook', config: { url: 'https://example.com/x' } },
        }),
      });
      return { status: response.status, body: (await response.json()) as { error: { code: string } } };
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    const jobs = await api()('GET', '/api/v1/jobs?q=forged');
    expect(jobs.body.data).toEqual([]);
  });

  it('should draw the 24 h sparkline from counts the API makes in SQL, past the 1 000 runs a page of runs could hold', async () => {
    // 1 100 runs of the job spread over 1–20 hours ago: all inside the sparkline's 24 hours.
    const hourStart = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const times = Array.from(
      { length: 1_100 },
      (_, i) => new Date(hourStart - 3_600_000 - (i % 20) * 3_600_000 + i * 1_000),
    );
    await stack.dataSource.query(
      `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status)
       SELECT 'run_' || lpad(upper(to_hex(n)), 26, '0'), j.workspace_id, j.id, 1, t, 'schedule',
              CASE WHEN n % 22 = 0 THEN 'failed' ELSE 'succeeded' END
         FROM jobs j, unnest($2::timestamptz[]) WITH ORDINALITY AS u(t, n) WHERE j.id = $1`,
      [jobId, times.map((t) => t.toISOString())],
    );
    const [count] = await stack.dataSource.query(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS ok, count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE status IN ('running', 'deferred', 'cancelled'))::int AS other
         FROM runs WHERE job_id = $1 AND scheduled_at >= $2`,
      [jobId, new Date(hourStart - 21 * 3_600_000)],
    );
    expect(count.ok + count.failed).toBeGreaterThan(1_000);
    await page.goto(stack.baseUrl + '/');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Nightly report' }) });
    await row
      .locator(
        `canvas.sparkline[aria-label="Last 24 hours: ${count.ok} succeeded, ${count.failed} failed, ${count.other} in flight or cancelled"]`,
      )
      .waitFor();
  });

  // Issue 44: a job in trouble shows in the list, not only on its own page.
  it('should show a run retrying against a receiver answering 500, its attempt of the budget and its SLA breach', async () => {
    receiver.respondWith((request) =>
      request.url.startsWith('/failing') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' },
    );
    try {
      const created = await api()('POST', '/api/v1/jobs', {
        name: 'Failing sync',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/failing` } },
        retry: { max_attempts: 5, backoff: 'fixed', initial_interval: '10m', max_interval: '10m' },
        sla_threshold: '1s',
      });
      expect(created.status).toBe(201);
      const triggered = await api()('POST', `/api/v1/jobs/${created.body.id}/trigger`);
      expect(triggered.status).toBe(202);
      const failingRun = triggered.body.run_id as string;
      // The first attempt failed on the 500; the run waits ten minutes for its second.
      let last: unknown;
      const run = await waitFor(async () => {
        const read = (await api()('GET', `/api/v1/runs/${failingRun}`)).body;
        last = read;
        return read.status === 'deferred' && read.attempts.length === 1 ? read : null;
      }, 60_000).catch((err: Error) => {
        throw new Error(`${err.message}; the run: ${JSON.stringify(last)}`);
      });
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(run.scheduled_at) + 1_500 - Date.now())));

      // The API's list carries it (one query for the page)…
      const listed = (await api()('GET', '/api/v1/jobs?limit=50')).body.data.find(
        (job: { id: string }) => job.id === created.body.id,
      );
      expect(listed.latest_run).toMatchObject({
        id: failingRun,
        status: 'deferred',
        attempts_count: 1,
        max_attempts: 5,
        sla_breached: true,
      });
      expect(Date.parse(listed.latest_run.next_attempt_at)).toBeGreaterThan(Date.now());

      // …and the dashboard's jobs list shows it, in the deferred colour, with its SLA breach.
      await page.goto(stack.baseUrl + '/');
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Failing sync' }) });
      await row.getByText('retrying, attempt 2 of 5').waitFor();
      expect(await row.locator('.badge.deferred').innerText()).toBe('deferred');
      await row.locator('.badge.failed', { hasText: 'SLA breached' }).waitFor();
      expect(await row.locator('.run-note time').getAttribute('datetime')).toBe(listed.latest_run.next_attempt_at);
      await row.locator('canvas.sparkline[aria-label$=", 1 in flight or cancelled"]').waitFor();
      await api()('DELETE', `/api/v1/jobs/${created.body.id}`);
    } finally {
      receiver.respondWith(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('should be usable at 360 px wide and by keyboard', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(stack.baseUrl + '/');
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.locator('canvas.sparkline').first().waitFor();
    expect(await overflowing(page)).toEqual([]);
    await shot('jobs-360px');
    await page.goto(`${stack.baseUrl}/jobs/${jobId}`);
    await page.getByRole('heading', { name: 'Nightly report' }).waitFor();
    await page.getByTestId('fire-times').waitFor();
    expect(await overflowing(page)).toEqual([]);
    await shot('job-detail-360px');

    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Skip to content');
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(stack.baseUrl + '/');
    await page.locator('canvas.sparkline').first().waitFor();
    await waitFor(async () => (await page.locator('.badge.succeeded').count()) > 0);
    await shot('jobs');
  });

  it('should sign out, and have loaded nothing from any other origin', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/v1/me')).status);
    expect(me).toBe(401);
    expect(foreignRequests).toEqual([]);
  });
});
