import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEV_SIGN_IN, launchDashboardChromium, overflowing, signedInPage } from '../utils/dashboard';
import { waitFor } from '../utils/receiver';
import { useStackAndReceiver } from '../utils/stack';

/**
 * The job and run pages in a real browser (issues #26 and #23): the next fire times are the API's
 * `next_runs` and the runs that then happen fire at exactly those times (an interval job, whose
 * phase is the moment it was saved, not the moment the page opens); the job page shows where and
 * how it delivers; an auto-disabled job says so in a sentence with the last error and is
 * re-enabled from there; a run's breadcrumb names its job; attempts read "1 of 2" and a retryable
 * failure with no attempt left says so; a failed run is retried from its page, once. Jobs declared
 * by an apply (issue 42) show their key and owner, and the list filters by owner and finds a key.
 */
const SCREENSHOTS = resolve(__dirname, '../../docs/screenshots');

jest.setTimeout(240_000);

describe('dashboard job and run pages in Chromium', () => {
  const e2e = useStackAndReceiver({
    config: { auth: DEV_SIGN_IN },
    respond: (request) =>
      failing.has(request.url) ? { status: 500, body: 'receiver down' } : { status: 200, body: 'ok' },
  });
  let browser: Browser;
  let page: Page;
  /** Paths the receiver answers with 500. */
  const failing = new Set<string>();

  beforeAll(async () => {
    browser = await launchDashboardChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    const context = { viewport: { width: 1280, height: 860 }, timezoneId: 'Asia/Kolkata' };
    page = await signedInPage(browser, e2e.stack.baseUrl, 'grace@example.com', context);
  });

  afterAll(async () => {
    await browser?.close();
  });

  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });

  const scheduledTimes = async (jobId: string): Promise<string[]> =>
    (
      (await e2e.api('GET', `/api/v1/jobs/${jobId}/runs?trigger=schedule&limit=100`)).body.data as Array<{
        scheduled_at: string;
      }>
    ).map((run) => run.scheduled_at);

  it('should show the next fire times of an interval job as the API gives them, and runs then fire at those times', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'Every seven seconds',
      schedule: { expr: 'every 7 seconds', timezone: 'Europe/Berlin' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/interval` } },
    });
    expect(created.status).toBe(201);
    const jobId: string = created.body.id;
    // Open the page off the job's phase: a browser computing from page-open time would be 2.5 s off.
    await new Promise((r) => setTimeout(r, 2500));
    await page.goto(`${e2e.stack.baseUrl}/jobs/${jobId}`);
    const fireTimes = page.getByTestId('fire-times');
    await fireTimes.waitFor();
    const shown = await fireTimes.locator('time').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('datetime')!));
    expect(shown.length).toBe(5);
    const job = (await e2e.api('GET', `/api/v1/jobs/${jobId}`)).body;
    // The page's times are the API's occurrences (the API's list may have moved on by one since).
    expect(job.next_runs.filter((t: string) => shown.includes(t)).length).toBeGreaterThanOrEqual(4);
    const gaps = shown.slice(1).map((t, i) => Date.parse(t) - Date.parse(shown[i]));
    expect(gaps).toEqual([7000, 7000, 7000, 7000]);

    // The first three shown times are when the runs then fire.
    const expected = shown.slice(0, 3);
    await waitFor(async () => {
      const fired = await scheduledTimes(jobId);
      return expected.every((t) => fired.includes(t));
    }, 60_000);
    const fired = await scheduledTimes(jobId);
    expect(
      fired.filter((t) => Date.parse(t) >= Date.parse(expected[0]) && Date.parse(t) <= Date.parse(expected[2])).sort(),
    ).toEqual([...expected].sort());
    // "Next fire times" move on as runs fire (the page reads the job again).
    await waitFor(async () => {
      const now = await fireTimes.locator('time').first().getAttribute('datetime');
      return now !== null && Date.parse(now) > Date.parse(expected[2]);
    }, 20_000);
    expect((await e2e.api('POST', `/api/v1/jobs/${jobId}/pause`)).status).toBe(200);
  });

  let failingJob: { id: string; name: string };
  let failedRunId: string;

  it('should show where and how a job delivers, and an auto-disable as a sentence with the last error', async () => {
    failing.add('/flaky/hook?token=secret');
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'Flaky export',
      schedule: { expr: 'every day at 9am' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/flaky/hook?token=secret`, method: 'PUT' } },
      retry: { max_attempts: 2, backoff: 'fixed', initial_interval: '1s' },
      timeout: '5s',
      overlap_policy: 'skip',
      misfire_policy: 'fire_once',
      auto_disable_threshold: 1,
    });
    expect(created.status).toBe(201);
    failingJob = created.body;
    expect((await e2e.api('POST', `/api/v1/jobs/${failingJob.id}/trigger`)).status).toBe(202);
    await waitFor(
      async () => (await e2e.api('GET', `/api/v1/jobs/${failingJob.id}`)).body.state === 'disabled',
      60_000,
    );

    await page.goto(`${e2e.stack.baseUrl}/jobs/${failingJob.id}`);
    const delivery = page.getByTestId('delivery');
    await delivery.waitFor();
    const text = (await delivery.textContent())!;
    const host = new URL(e2e.receiver.url).host;
    expect(text).toContain(`PUT ${host}/flaky/hook`);
    expect(text).not.toContain('token=secret');
    expect(text).toContain('up to 2 attempts, fixed backoff from 1s');
    expect(text).toContain('5s per attempt');
    // A job without a start window fires on time (issue 46's row between the two).
    expect(text).toContain('OverlapskipStart windownone: on timeMisfirefire once');
    expect(text).toContain('Auto-disableafter a failed run');

    const note = page.getByTestId('disabled-note');
    await note.getByText('Last error:').waitFor();
    const noteText = (await note.textContent())!;
    expect(noteText).toContain(
      'The job was disabled automatically after a failed run, and no longer runs on its schedule.',
    );
    expect(noteText).not.toContain('auto_disabled');
    const run = (await e2e.api('GET', `/api/v1/jobs/${failingJob.id}/runs`)).body.data[0];
    expect(run.status).toBe('failed');
    failedRunId = run.id;
    expect(noteText).toContain(run.last_error);
    // The runs table counts attempts against the budget.
    const row = page.getByTestId('runs').locator('tbody tr').first();
    await row.locator('.badge.failed').waitFor();
    expect(await row.locator('td').nth(3).textContent()).toBe('2 of 2');
    await shot('job-auto-disabled');
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await overflowing(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('should name the job in the run breadcrumb, count attempts from 1 and say no attempt was left', async () => {
    await page.getByTestId('disabled-note').getByRole('link').click();
    await page.getByRole('heading', { name: `Run ${failedRunId}` }).waitFor();
    const crumb = page.getByTestId('job-crumb');
    await crumb.getByText('Flaky export').waitFor();
    expect(await crumb.getAttribute('href')).toBe(`/jobs/${failingJob.id}`);

    const attempts = page.getByTestId('attempts');
    await attempts.waitFor();
    const firstColumn = await attempts.locator('tbody tr td:first-child').allTextContents();
    expect(firstColumn).toEqual(['1 of 2', '2 of 2']);
    const outcomes = await attempts.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(outcomes).toEqual(['retryable', 'retryable']);
    expect(await page.getByTestId('no-attempt-left').textContent()).toContain('no attempt was left (2 of 2 used)');
    expect(await page.locator('details summary').allTextContents()).toEqual([
      'Attempt 1 of 2: error and response body',
      'Attempt 2 of 2: error and response body',
    ]);
    // The API keeps the spec's 0-based numbering.
    const detail = (await e2e.api('GET', `/api/v1/runs/${failedRunId}`)).body;
    expect(detail.attempts.map((a: { n: number }) => a.n)).toEqual([0, 1]);
  });

  it('should retry a failed run from its page once (by keyboard, at 360 px), and refuse a second retry of the occurrence', async () => {
    failing.clear();
    await shot('run-failed');
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await overflowing(page)).toEqual([]);
    await page.getByRole('button', { name: 'Retry' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(failedRunId));
    const retryId = new URL(page.url()).pathname.split('/runs/')[1];
    await page.getByRole('heading', { name: `Run ${retryId}` }).waitFor();
    await page.locator('.page-head .badge.succeeded').waitFor({ timeout: 60_000 });
    expect(await page.getByText('retry_manual of the failed run').count()).toBe(1);
    const retried = (await e2e.api('GET', `/api/v1/runs/${retryId}`)).body;
    expect(retried).toMatchObject({ trigger: 'retry_manual', retry_of: failedRunId, status: 'succeeded' });
    expect(await page.getByTestId('attempts').locator('tbody tr td:first-child').allTextContents()).toEqual(['1 of 2']);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.getByRole('link', { name: 'the failed run' }).click();
    await page.getByRole('heading', { name: `Run ${failedRunId}` }).waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/exhausted|retried/i);
    expect(new URL(page.url()).pathname).toBe(`/runs/${failedRunId}`);
  });

  it('should re-enable an auto-disabled job from its page', async () => {
    await page.goto(`${e2e.stack.baseUrl}/jobs/${failingJob.id}`);
    await page.getByTestId('disabled-note').waitFor();
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByText('Re-enabled: the job runs on its schedule again').waitFor();
    expect((await e2e.api('GET', `/api/v1/jobs/${failingJob.id}`)).body.state).toBe('active');
    await page.getByTestId('fire-times').waitFor();
    expect(await page.getByTestId('disabled-note').count()).toBe(0);
  });

  it('should show a managed job’s key and owner with the apply warning, filter the list by owner and find a key', async () => {
    const owner = 'git:infra/jobs.yaml';
    const declared = (key: string, name: string) => ({
      key,
      name,
      schedule: { expr: 'every day at 6am' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/${key}` } },
    });
    const applied = await e2e.api('POST', '/api/v1/jobs/apply', {
      managed_by: owner,
      jobs: [declared('reports.nightly', 'Nightly report'), declared('reports.weekly', 'Weekly report')],
    });
    expect(applied.status).toBe(200);
    expect(applied.body.created).toEqual(['reports.nightly', 'reports.weekly']);
    const other = await e2e.api('POST', '/api/v1/jobs/apply', {
      managed_by: 'app:billing',
      jobs: [declared('billing.sync', 'Billing sync')],
    });
    expect(other.status).toBe(200);
    const nightly = (await e2e.api('GET', '/api/v1/jobs/by-key/reports.nightly')).body;

    // The list (after the selection checkbox): key and owner in their columns; unmanaged jobs show neither.
    await page.goto(e2e.stack.baseUrl + '/');
    const rowOf = (name: string) =>
      page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await rowOf('Nightly report').waitFor();
    expect(await rowOf('Nightly report').locator('td').nth(2).textContent()).toBe('reports.nightly');
    expect(await rowOf('Nightly report').locator('td').nth(3).textContent()).toBe(owner);
    expect(await rowOf('Billing sync').locator('td').nth(3).textContent()).toBe('app:billing');
    expect(await rowOf(failingJob.name).locator('td').nth(2).textContent()).toBe('—');
    const names = () => page.locator('table.jobs tbody tr td:nth-child(2) a').allTextContents();

    // Filter by owner (exact), then search by key.
    await page.getByLabel('Managed by').fill(owner);
    await waitFor(async () => (await names()).length === 2);
    expect((await names()).sort()).toEqual(['Nightly report', 'Weekly report']);
    await page.getByLabel('Managed by').fill('');
    await page.getByLabel('Search').fill('reports.weekly');
    await waitFor(async () => (await names()).join() === 'Weekly report');
    await page.getByLabel('Search').fill('no-such-key');
    await page.getByText('No jobs match.').waitFor();

    // The job's page: its key, and who manages it, linked to the owner's jobs.
    await page.goto(`${e2e.stack.baseUrl}/jobs/${nightly.id}`);
    await page.getByRole('heading', { name: 'Nightly report' }).waitFor();
    expect(await page.getByTestId('job-key').textContent()).toBe('reports.nightly');
    const note = page.getByTestId('managed-note');
    expect(await note.textContent()).toBe(
      'Managed by git:infra/jobs.yaml: edits here are overwritten by the next apply.',
    );
    expect(await overflowing(page)).toEqual([]);
    await note.getByRole('link', { name: owner }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    expect(new URL(page.url()).searchParams.get('managed_by')).toBe(owner);
    expect(await page.getByLabel('Managed by').inputValue()).toBe(owner);
    await waitFor(async () => (await names()).length === 2);
    expect((await names()).sort()).toEqual(['Nightly report', 'Weekly report']);

    // The edit form says it too; a job made by hand says nothing of the kind.
    await page.goto(`${e2e.stack.baseUrl}/jobs/${nightly.id}/edit`);
    await page.getByRole('heading', { name: 'Edit Nightly report' }).waitFor();
    await page.getByTestId('managed-note').waitFor();
    await page.goto(`${e2e.stack.baseUrl}/jobs/${failingJob.id}`);
    await page.getByRole('heading', { name: failingJob.name }).waitFor();
    expect(await page.getByTestId('managed-note').count()).toBe(0);
    expect(await page.getByTestId('job-key').count()).toBe(0);
  });

  it('should backfill a past range from the job page: the dry-run count, then the runs with their nominal times (issue 45)', async () => {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'Hourly sync',
      schedule: { expr: '0 * * * *', timezone: 'Europe/Berlin' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/hourly` } },
    });
    expect(created.status).toBe(201);
    const jobId: string = created.body.id;
    const day = new Date(Date.now() - 2 * 86_400_000);
    const from = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
    // The browser runs in Asia/Kolkata (UTC+05:30): datetime-local takes its wall time.
    const local = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 16);

    await page.goto(`${e2e.stack.baseUrl}/jobs/${jobId}`);
    await page.getByRole('heading', { name: 'Hourly sync' }).waitFor();
    await page.getByRole('button', { name: 'Backfill…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Backfill' });
    await dialog.waitFor();
    await dialog.getByLabel('From').fill(local(from));
    await dialog.getByLabel('To (not included)').fill(local(from + 6 * 3_600_000));
    const count = dialog.getByTestId('backfill-count');
    await waitFor(async () => (await count.textContent())?.startsWith('6 occurrences'));
    // The dry run wrote nothing.
    expect((await e2e.api('GET', `/api/v1/jobs/${jobId}/runs`)).body.data).toEqual([]);
    expect(await overflowing(page)).toEqual([]);
    await shot('job-backfill');

    await dialog.getByLabel('Mode').selectOption('parallel');
    await dialog.getByRole('button', { name: 'Start backfill' }).click();
    const progress = dialog.getByTestId('backfill-progress');
    await waitFor(async () => (await progress.textContent())?.startsWith('completed: 6 succeeded'), 60_000);
    const runs = (await e2e.api('GET', `/api/v1/jobs/${jobId}/runs?trigger=backfill`)).body.data as Array<{
      scheduled_at: string;
    }>;
    expect(runs.map((run) => Date.parse(run.scheduled_at)).sort((a, b) => a - b)).toEqual(
      [0, 1, 2, 3, 4, 5].map((h) => from + h * 3_600_000),
    );
    // The run history shows them as backfill runs.
    await page.getByTestId('runs').locator('tbody td', { hasText: 'backfill' }).first().waitFor();
  });
});
