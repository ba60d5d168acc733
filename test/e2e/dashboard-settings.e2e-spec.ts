import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEV_SIGN_IN, launchDashboardChromium, signedInPage } from '../utils/dashboard';
import { Webhook } from 'standardwebhooks';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { TestSmtpServer } from '../utils/smtp-server';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Issue #23 "the dashboard does what the API does", in Debian's Chromium (as dashboard.e2e-spec.ts
 * drives it), against the API, a worker (confirmation mails go through Temporal), a real SMTP
 * server and loopback receivers: alert channels of every kind (create, edit, test, resend the
 * confirmation, delete; the webhook secret once), alert rules (create, edit, delete, filters and
 * cooldown), the audit log (filters by action, actor, target and time, paging), the workspace's
 * name and slug, destination limits and calendars. Forms are reached with Tab and submitted with
 * Enter; the API's `fields` errors appear under their control; every step checks the resulting
 * state through the API; every page fits 360 px.
 */
const SCREENSHOTS = resolve(__dirname, '../../docs/screenshots');

jest.setTimeout(240_000);

interface Channel {
  id: string;
  name: string;
  kind: string;
  config: Record<string, string>;
  verified: boolean;
}

describe('dashboard: alerts, audit log and workspace settings in Chromium (issue #23)', () => {
  let stack: Stack;
  let smtp: TestSmtpServer;
  let hook: WebhookReceiver;
  let slack: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof apiClient>;
  /** Bodies of the mutations the page sent, to check an edit sends only what changed. */
  const sent: Array<{ method: string; path: string; body: unknown }> = [];

  beforeAll(async () => {
    browser = await launchDashboardChromium();
    smtp = await TestSmtpServer.start();
    hook = await WebhookReceiver.start();
    slack = await WebhookReceiver.start();
    stack = await startStack({
      config: {
        auth: DEV_SIGN_IN,
        smtp: { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'Scheduler alerts <alerts@svc.test>' },
      },
    });
    api = apiClient(stack.baseUrl, stack.apiKey);
    const context = { viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin' };
    page = await signedInPage(browser, stack.baseUrl, 'ada@example.com', context, (opened) => {
      // Deleting asks for confirmation: accept, as a person would.
      opened.on('dialog', (dialog) => void dialog.accept());
      opened.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith('/api/v1/') && ['POST', 'PATCH', 'PUT', 'DELETE'].includes(request.method())) {
          sent.push({
            method: request.method(),
            path: url.pathname,
            body: request.postData() && request.postDataJSON(),
          });
        }
      });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await Promise.all([smtp?.stop(), hook?.stop(), slack?.stop()]);
  });

  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  const activeId = () => page.evaluate(() => (globalThis as any).document.activeElement?.id as string | undefined);
  const lastSent = (method: string, path: RegExp) =>
    [...sent].reverse().find((s) => s.method === method && path.test(s.path));
  const channels = async () => (await api<{ data: Channel[] }>('GET', '/api/v1/alert-channels')).body.data;

  /** Presses Tab until the element with `id` has the focus: the form is reachable by keyboard. */
  async function tabTo(id: string, maxPresses = 60): Promise<void> {
    for (let i = 0; i < maxPresses; i++) {
      if ((await activeId()) === id) {
        return;
      }
      await page.keyboard.press('Tab');
    }
    throw new Error(`#${id} not reached with ${maxPresses} Tab presses (focus on #${await activeId()})`);
  }

  /** Elements reaching past the viewport's right edge (wide tables scroll inside their own region). */
  function overflowing(): Promise<string[]> {
    return page.evaluate(() => {
      const doc = (globalThis as any).document;
      const width: number = doc.documentElement.clientWidth;
      const offenders = [...doc.querySelectorAll('body *')]
        .filter(
          (el: any) =>
            (el.parentElement?.closest('.table-wrap') ?? null) === null &&
            el.getBoundingClientRect().right > width + 0.5,
        )
        .map(
          (el: any) =>
            `${el.tagName.toLowerCase()}#${el.id}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`,
        );
      const scroll: number = doc.documentElement.scrollWidth;
      return scroll > width ? [...offenders, `document ${scroll} px`] : offenders;
    });
  }

  /** `2026-11-21T10:00`: an instant as a `datetime-local` input in the browser's zone shows it. */
  function berlinLocal(iso: string): string {
    return new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'Europe/Berlin',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .format(new Date(iso))
      .replace(' ', 'T');
  }

  /** The confirmation link of the n-th mail to `address`, pointed at the API under test. */
  async function confirmationLink(address: string, n: number): Promise<string> {
    const mail = await waitFor(() => smtp.to(address)[n - 1]);
    const link = /https?:\/\/\S+\/api\/v1\/alert-channels\/verify\?token=[\w.%-]+/.exec(mail.parsed.text ?? '');
    expect(link).not.toBeNull();
    const url = new URL(link![0]);
    return `${stack.baseUrl}${url.pathname}${url.search}`;
  }

  let webhookSecret: string;

  it('should reach the alerts page from the main navigation and create a webhook channel by keyboard, its secret shown once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('heading', { name: 'Alert channels' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/alerts');
    await page.getByText('No channels.').waitFor();

    await tabTo('channel-name');
    await page.keyboard.type('ops hook');
    await page.keyboard.press('Tab');
    expect(await activeId()).toBe('channel-kind');
    expect(await page.locator('#channel-kind').inputValue()).toBe('webhook');
    await page.keyboard.press('Tab');
    expect(await activeId()).toBe('channel-destination');
    await page.keyboard.type(`${hook.url}/alerts`);
    await page.keyboard.press('Enter');

    const secret = page.getByTestId('one-time-secret');
    await secret.waitFor();
    webhookSecret = (await secret.textContent())!;
    expect(webhookSecret).toMatch(/^whsec_/);
    const [channel] = await channels();
    expect(channel).toMatchObject({
      name: 'ops hook',
      kind: 'webhook',
      config: { url: `${hook.url}/alerts` },
      verified: true,
    });
    await page.getByTestId('alert-channels').getByRole('cell', { name: 'ops hook', exact: true }).waitFor();

    // Shown once: gone after a reload, and never in any answer of the API afterwards.
    await page.reload();
    await page.getByTestId('alert-channels').waitFor();
    expect(await page.getByTestId('one-time-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(webhookSecret);
  });

  it('should send a test alert through the webhook channel, signed with the secret shown', async () => {
    await page.getByRole('button', { name: 'Send test to ops hook' }).click();
    await page.getByText('Test alert to “ops hook”: delivered.').waitFor();
    const request = await waitFor(() => hook.requests.find((r) => r.url === '/alerts'));
    const payload = new Webhook(webhookSecret).verify(request.body, request.headers as Record<string, string>);
    expect(payload).toMatchObject({ type: 'alert.test' });
  });

  it('should show the API’s field error under the address, create nothing, then create an email channel and confirm it', async () => {
    await page.locator('#channel-name').fill('on-call mail');
    await page.locator('#channel-kind').selectOption('email');
    expect(await page.getByLabel('Email address').getAttribute('type')).toBe('email');
    await page.getByLabel('Email address').fill('not-an-address');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const fieldError = page.locator('#channel-destination-error');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toContain('must be an email address');
    expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Email address').getAttribute('aria-describedby')).toContain(
      'channel-destination-error',
    );
    expect(await channels()).toHaveLength(1);

    await page.getByLabel('Email address').fill('oncall@example.com');
    await page.getByLabel('Email address').press('Enter');
    await page.getByText('a confirmation link was mailed to oncall@example.com').waitFor();
    const email = (await channels()).find((c) => c.kind === 'email')!;
    expect(email).toMatchObject({ name: 'on-call mail', config: { address: 'oncall@example.com' }, verified: false });
    const row = page.getByRole('row').filter({ hasText: 'on-call mail' });
    await row.locator('.badge.unverified').waitFor();

    // A second mail within the minute is refused: the page says why.
    await page.getByRole('button', { name: 'Resend confirmation to on-call mail' }).click();
    await page.getByRole('alert').filter({ hasText: 'less than a minute ago' }).waitFor();
    await confirmationLink('oncall@example.com', 1);

    // A minute later (moved back in the database rather than waited for) it mails a new link.
    await stack.dataSource.query(
      `UPDATE alert_channels SET verification_sent_at = now() - interval '2 minutes' WHERE id = $1`,
      [email.id],
    );
    await page.getByRole('button', { name: 'Resend confirmation to on-call mail' }).click();
    await page.getByText('A new confirmation link was mailed to oncall@example.com.').waitFor();
    const followed = await fetch(await confirmationLink('oncall@example.com', 2));
    expect(followed.status).toBe(200);
    expect((await channels()).find((c) => c.id === email.id)!.verified).toBe(true);
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'on-call mail' }).locator('.badge.verified').waitFor();
    expect(await page.getByRole('button', { name: 'Resend confirmation to on-call mail' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Send test to on-call mail' }).click();
    await page.getByText('Test alert to “on-call mail”: delivered.').waitFor();
    await waitFor(() => smtp.to('oncall@example.com').find((m) => /test/i.test(m.parsed.subject ?? '')));
  });

  it('should create a Slack channel, keep its hidden URL on a rename, and replace it when a new one is typed', async () => {
    await page.locator('#channel-name').fill('team slack');
    await page.locator('#channel-kind').selectOption('slack');
    await page.getByLabel('Slack incoming-webhook URL').fill(`${slack.url}/services/T000/B000/first`);
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByText('Created team slack.').waitFor();
    const created = (await channels()).find((c) => c.kind === 'slack')!;
    // The URL is a credential: listed up to its first path segment only.
    expect(created.config.webhook_url).toBe(`${slack.url}/services/…`);
    expect(await page.content()).not.toContain('B000/first');

    await page.getByRole('button', { name: 'Edit team slack' }).click();
    await page.getByRole('heading', { name: 'Edit channel “team slack”' }).waitFor();
    expect(await activeId()).toBe('channel-name');
    expect(await page.locator('#channel-kind').isDisabled()).toBe(true);
    expect(await page.getByLabel('Slack incoming-webhook URL').inputValue()).toBe('');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('team slack (ops)');
    await page.keyboard.press('Enter');
    await page.getByText('Saved team slack (ops).').waitFor();
    expect(lastSent('PATCH', /alert-channels/)!.body).toEqual({ name: 'team slack (ops)' });
    await page.getByRole('button', { name: 'Send test to team slack (ops)' }).click();
    await page.getByText('Test alert to “team slack (ops)”: delivered.').waitFor();
    expect(slack.requests.map((r) => r.url)).toEqual(['/services/T000/B000/first']);

    await page.getByRole('button', { name: 'Edit team slack (ops)' }).click();
    await page.getByLabel('Slack incoming-webhook URL').fill(`${slack.url}/services/T000/B000/second`);
    await page.getByRole('button', { name: 'Save channel' }).click();
    await page.getByText('Saved team slack (ops).').waitFor();
    expect(lastSent('PATCH', /alert-channels/)!.body).toEqual({
      config: { webhook_url: `${slack.url}/services/T000/B000/second` },
    });
    await page.getByRole('button', { name: 'Send test to team slack (ops)' }).click();
    await waitFor(() => slack.requests.length === 2);
    expect(slack.requests[1].url).toBe('/services/T000/B000/second');
    expect((await channels()).find((c) => c.id === created.id)!.name).toBe('team slack (ops)');
  });

  let jobId: string;

  it('should create an alert rule with events, channels, a job filter, tags and a cooldown, and refuse a bad cooldown by field', async () => {
    const job = await api('POST', '/api/v1/jobs', {
      name: 'nightly export',
      schedule: { expr: 'every day at 3am' },
      sink: { kind: 'webhook', config: { url: `${hook.url}/job` } },
    });
    expect(job.status).toBe(201);
    jobId = job.body.id;
    await page.reload();
    await page.getByRole('heading', { name: 'New rule' }).waitFor();
    const all = await channels();
    const hookChannel = all.find((c) => c.kind === 'webhook')!;
    const slackChannel = all.find((c) => c.kind === 'slack')!;

    await tabTo('rule-name');
    await page.keyboard.type('prod failures');
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'New rule' }) });
    await form.getByLabel('job.recovered (a job recovered)').check();
    await form.getByLabel('ops hook (webhook)').check();
    await form.getByLabel('team slack (ops) (slack)').check();
    await form.getByLabel('nightly export').check();
    await page.getByLabel('Only jobs tagged').fill('prod, critical');
    await page.getByLabel('Cooldown').fill('8d');
    await page.getByLabel('Cooldown').press('Enter');
    const cooldownError = page.locator('#rule-cooldown-error');
    await cooldownError.waitFor();
    expect(await page.getByLabel('Cooldown').getAttribute('aria-invalid')).toBe('true');
    expect((await api('GET', '/api/v1/alert-rules')).body.data).toEqual([]);

    await page.getByLabel('Cooldown').fill('1h');
    await page.getByLabel('Cooldown').press('Enter');
    await page.getByText('Created prod failures.').waitFor();
    const rules = (await api('GET', '/api/v1/alert-rules')).body.data;
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      name: 'prod failures',
      enabled: true,
      events: ['run.failed', 'job.recovered'],
      channel_ids: [hookChannel.id, slackChannel.id],
      job_ids: [jobId],
      tags: ['prod', 'critical'],
      cooldown: '1h',
    });
    const row = page.getByTestId('alert-rules').getByRole('row').filter({ hasText: 'prod failures' });
    expect(await row.textContent()).toContain('nightly export tagged prod or critical');
    await shot('alerts');
  });

  it('should edit a rule sending only what changed, and delete it', async () => {
    const [rule] = (await api('GET', '/api/v1/alert-rules')).body.data;
    await page.getByRole('button', { name: 'Edit prod failures' }).click();
    await page.getByRole('heading', { name: 'Edit rule “prod failures”' }).waitFor();
    expect(await activeId()).toBe('rule-name');
    await page.getByLabel('Enabled').uncheck();
    await page.getByLabel('nightly export').uncheck();
    await page.getByLabel('Cooldown').fill('0s');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Saved prod failures.').waitFor();
    expect(lastSent('PATCH', /alert-rules/)!.body).toEqual({ enabled: false, job_ids: null, cooldown: '0s' });
    const after = (await api('GET', `/api/v1/alert-rules/${rule.id}`)).body;
    expect(after).toMatchObject({ enabled: false, job_ids: null, cooldown: '0s', tags: ['prod', 'critical'] });
    await page.getByTestId('alert-rules').locator('.badge.disabled').waitFor();

    await page.getByRole('button', { name: 'Delete prod failures' }).click();
    await page.getByText('Deleted prod failures.').waitFor();
    expect((await api('GET', `/api/v1/alert-rules/${rule.id}`)).status).toBe(404);
    await page.getByText('No rules.').waitFor();
  });

  it('should delete a channel', async () => {
    const before = await channels();
    await page.getByRole('button', { name: 'Delete on-call mail' }).click();
    await page.getByText('Deleted on-call mail.').waitFor();
    const after = await channels();
    expect(after.map((c) => c.name).sort()).toEqual(
      before
        .filter((c) => c.kind !== 'email')
        .map((c) => c.name)
        .sort(),
    );
    // The notice can show before the list is read again: wait for the row to go.
    await page
      .getByTestId('alert-channels')
      .getByRole('cell', { name: 'on-call mail', exact: true })
      .waitFor({ state: 'detached' });
  });

  it('should show the audit log with filters by action (keyboard), actor and target, and say which filter the API refused', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const table = page.getByTestId('audit-log');
    await table.waitFor();
    const everything = (await api('GET', '/api/v1/audit-log?limit=50')).body.data as Array<{ action: string }>;
    expect(await table.locator('tbody tr').count()).toBe(everything.length);

    await tabTo('audit-action');
    await page.keyboard.type('alert_channel.update');
    await page.keyboard.press('Enter');
    await page.waitForURL(/action=alert_channel.update/);
    const updates = (await api('GET', '/api/v1/audit-log?action=alert_channel.update')).body.data;
    // Two renames/readdresses of the Slack channel, and the confirmation of the address by `system`.
    expect(updates.length).toBe(3);
    await waitFor(async () => (await table.locator('tbody tr').count()) === updates.length);
    expect(new Set(await table.locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(
      new Set(['alert_channel.update']),
    );

    // A value in the table narrows further: the confirmation by `system`.
    await table.getByRole('link', { name: 'system' }).click();
    await page.waitForURL(/actor=system/);
    await waitFor(async () => (await table.locator('tbody tr').count()) === 1);
    expect(await page.getByLabel('Actor').inputValue()).toBe('system');
    expect(await page.getByLabel('Action').inputValue()).toBe('alert_channel.update');

    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.getByLabel('Target').fill(jobId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === 1);
    expect(await table.locator('tbody tr td:nth-child(3)').textContent()).toBe('job.create');

    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.getByLabel('Action').fill('Not An Action!');
    await page.getByLabel('Action').press('Enter');
    const actionError = page.locator('#audit-action-error');
    await actionError.waitFor();
    expect(await actionError.textContent()).toContain('must be an action such as job.create');
    expect(await page.getByLabel('Action').getAttribute('aria-invalid')).toBe('true');
  });

  it('should filter the audit log by time range and page through it as the API does', async () => {
    // 60 entries of one target, an hour apart from noon UTC six days ago (inside the 30-day
    // retention; no DST change between 09:00 and 13:00 UTC), written as the server writes them.
    const base = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 6 * 86_400_000 + 12 * 3_600_000;
    await stack.dataSource.query(
      `INSERT INTO audit_log (id, workspace_id, actor, action, target, details, created_at)
       SELECT 'aud_' || lpad(n::text, 26, '0'), $1, 'system', 'job.update', 'job_paged', ('{"n": ' || n || '}')::jsonb, $2::timestamptz + n * interval '1 hour'
         FROM generate_series(1, 60) AS n`,
      [stack.workspaceId, new Date(base).toISOString()],
    );
    await page.goto(`${stack.baseUrl}/settings/audit-log?target=job_paged`);
    const table = page.getByTestId('audit-log');
    await waitFor(async () => (await table.locator('tbody tr').count()) === 50);
    const firstPage = (await api('GET', '/api/v1/audit-log?target=job_paged')).body;
    const details = () => table.locator('code.details').allTextContents();
    expect(await details()).toEqual(firstPage.data.map((e: { details: unknown }) => JSON.stringify(e.details)));
    await page.getByRole('button', { name: 'Older entries' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === 10);
    const secondPage = (await api('GET', `/api/v1/audit-log?target=job_paged&cursor=${firstPage.next_cursor}`)).body;
    expect(await details()).toEqual(secondPage.data.map((e: { details: unknown }) => JSON.stringify(e.details)));
    expect(await page.getByRole('button', { name: 'Older entries' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Newer entries' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === 50);

    // Entries 21 to 24 by the viewer's clock (Berlin), as typed into the inputs; `to` is exclusive.
    const from = new Date(base + 21 * 3_600_000).toISOString();
    const to = new Date(base + 25 * 3_600_000).toISOString();
    await page.getByLabel('From').fill(berlinLocal(from));
    await page.getByLabel('To (before)').fill(berlinLocal(to));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/from=/);
    const url = new URL(page.url());
    expect(url.searchParams.get('from')).toBe(from);
    expect(url.searchParams.get('to')).toBe(to);
    const ranged = (await api('GET', `/api/v1/audit-log?target=job_paged&from=${from}&to=${to}`)).body.data;
    expect(ranged.map((e: { details: { n: number } }) => e.details.n)).toEqual([24, 23, 22, 21]);
    await waitFor(async () => (await table.locator('tbody tr').count()) === 4);
    expect(await details()).toEqual(ranged.map((e: { details: unknown }) => JSON.stringify(e.details)));
    await shot('audit-log');
  });

  it('should rename the workspace and change its slug by keyboard, and refuse a slug another workspace holds by field', async () => {
    await stack.newWorkspaceKey('taken-slug');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Workspace' }).click();
    await page.getByRole('heading', { name: 'Workspace' }).waitFor();
    await page.getByLabel('Workspace name').waitFor();
    expect(await page.getByLabel('Slug').inputValue()).toBe('acme');

    await tabTo('workspace-slug');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('taken-slug');
    await page.keyboard.press('Enter');
    const slugError = page.locator('#workspace-slug-error');
    await slugError.waitFor();
    expect(await slugError.textContent()).toBe('is already taken by another workspace');
    expect(await page.getByLabel('Slug').getAttribute('aria-invalid')).toBe('true');
    expect((await api('GET', `/api/v1/workspaces/${stack.workspaceId}`)).body.slug).toBe('acme');

    await page.keyboard.press('Shift+Tab');
    expect(await activeId()).toBe('workspace-name');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Acme Operations');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('acme-ops');
    await page.keyboard.press('Enter');
    await page.getByText('Saved: Acme Operations (acme-ops).').waitFor();
    expect(lastSent('PATCH', /workspaces/)!.body).toEqual({ name: 'Acme Operations', slug: 'acme-ops' });
    const workspace = (await api('GET', `/api/v1/workspaces/${stack.workspaceId}`)).body;
    expect(workspace).toMatchObject({ name: 'Acme Operations', slug: 'acme-ops' });
    // The header shows the new name at once (the page read /me again).
    await waitFor(async () => (await page.locator('.workspace-name').textContent()) === 'Acme Operations');
    await shot('settings-workspace');
  });

  it("should narrow the workspace's temporal_workflow task queues, one pattern per line, and show a bad one by field", async () => {
    await page.goto(`${stack.baseUrl}/settings/workspace`);
    const queues = page.getByLabel('Temporal workflow task queues');
    await queues.waitFor();
    expect(await queues.inputValue()).toBe('');
    await queues.fill('has space');
    await page.getByRole('button', { name: 'Save workspace' }).click();
    const error = page.locator('#workspace-task-queues-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('task-queue pattern');
    expect(await queues.getAttribute('aria-invalid')).toBe('true');
    expect((await api('GET', `/api/v1/workspaces/${stack.workspaceId}`)).body.temporal_workflow_task_queues).toBeNull();

    await queues.fill('reports-*\n\n  etl  \n');
    await page.getByRole('button', { name: 'Save workspace' }).click();
    await page.getByText(/^Saved: /).waitFor();
    expect(lastSent('PATCH', /workspaces/)!.body).toEqual({ temporal_workflow_task_queues: ['reports-*', 'etl'] });
    expect((await api('GET', `/api/v1/workspaces/${stack.workspaceId}`)).body.temporal_workflow_task_queues).toEqual([
      'reports-*',
      'etl',
    ]);
    expect(await queues.inputValue()).toBe('reports-*\netl');

    // Emptied: the server's list as is again.
    await queues.fill('');
    await page.getByRole('button', { name: 'Save workspace' }).click();
    await waitFor(
      () =>
        (lastSent('PATCH', /workspaces/)?.body as { temporal_workflow_task_queues?: unknown } | undefined)
          ?.temporal_workflow_task_queues === null,
    );
    await waitFor(
      async () =>
        (await api('GET', `/api/v1/workspaces/${stack.workspaceId}`)).body.temporal_workflow_task_queues === null,
    );
  });

  it('should set, show and remove destination limits with what is in flight, waiting and held (issue 46)', async () => {
    await page.goto(`${stack.baseUrl}/settings/destinations`);
    await page.getByRole('heading', { name: 'Destinations' }).waitFor();
    await page.getByLabel('Destination', { exact: true }).fill('hooks.example.com:443');
    await page.getByLabel('Max in flight').fill('3');
    await page.getByLabel('Per minute').fill('120');
    await page.getByLabel('Hold every job on 429/503 with Retry-After').check();
    await page.getByRole('button', { name: 'Save limits' }).click();
    const table = page.getByTestId('destinations');
    await table.waitFor();
    const row = table.locator('tbody tr');
    await waitFor(async () => (await row.count()) === 1);
    expect(await row.locator('td').allTextContents()).toEqual([
      'hooks.example.com:443',
      '3',
      '0 / 120',
      'hold all jobs',
      '0',
      '0',
      '—',
      expect.stringContaining('Remove'),
    ]);
    const stored = (await api('GET', '/api/v1/destinations/hooks.example.com:443')).body;
    expect(stored).toMatchObject({ max_in_flight: 3, per_minute: 120, on_429: 'pause_destination' });

    // A limit of 0 is the API's 400, shown as said.
    await page.getByLabel('Destination', { exact: true }).fill('hooks.example.com:443');
    await page.getByLabel('Max in flight').fill('0');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('max_in_flight').waitFor();
    expect((await api('GET', '/api/v1/destinations/hooks.example.com:443')).body.max_in_flight).toBe(3);

    await row.getByRole('button', { name: /Remove/ }).click();
    await page.getByText('No destination has limits').waitFor();
    expect((await api('GET', '/api/v1/destinations/hooks.example.com:443')).status).toBe(404);
  });

  it('should create a calendar from a list of dates, show a bad date by its line, replace it from iCalendar text, and delete it (issue 45)', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Calendars' }).click();
    await page.getByRole('heading', { name: 'Calendars' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/calendars');
    await page.getByText('No calendars.').waitFor();
    const calendars = async () => (await api<{ data: unknown[] }>('GET', '/api/v1/calendars')).body.data;
    // Next year's dates: all of them are upcoming whatever the day the test runs.
    const y = new Date().getFullYear() + 1;
    const name = page.getByLabel('Calendar name');
    const dates = page.getByLabel('Dates', { exact: true });
    const save = page.getByRole('button', { name: 'Save calendar' });

    // A date that does not exist: the API's `dates[1]`, told by its line (blank lines count).
    await name.fill('holidays:de-berlin');
    await dates.fill(`${y}-12-26\n\n${y}-02-30\n${y}-12-24`);
    await save.click();
    const datesError = page.locator('#calendar-dates-error');
    await datesError.waitFor();
    expect(await datesError.textContent()).toBe(`line 3: ${y}-02-30 is not a date`);
    expect(await dates.getAttribute('aria-invalid')).toBe('true');
    expect(await dates.getAttribute('aria-describedby')).toContain('calendar-dates-error');
    expect(await calendars()).toEqual([]);

    // One date a line, any order, a duplicate: created with four.
    await dates.fill(`${y}-12-26\n${y}-12-24\n  ${y}-12-25  \n${y}-12-31\n${y}-12-24\n`);
    await save.click();
    await page.getByText('Created holidays:de-berlin with 4 dates.').waitFor();
    expect(lastSent('PUT', /calendars/)!.body).toEqual({
      dates: [`${y}-12-26`, `${y}-12-24`, `${y}-12-25`, `${y}-12-31`, `${y}-12-24`],
    });
    expect((await api('GET', '/api/v1/calendars/holidays:de-berlin')).body.dates).toEqual([
      `${y}-12-24`,
      `${y}-12-25`,
      `${y}-12-26`,
      `${y}-12-31`,
    ]);
    const table = page.getByTestId('calendars');
    const row = table.getByRole('row').filter({ hasText: 'holidays:de-berlin' });
    await row.waitFor();
    const cells = async () => (await row.locator('td').allTextContents()).slice(0, 4);
    expect(await cells()).toEqual([
      'holidays:de-berlin',
      '4',
      `${y}-12-24, ${y}-12-25, ${y}-12-26 and 1 more`,
      `${y}-12-24 – ${y}-12-31`,
    ]);
    expect(await name.inputValue()).toBe('');
    await shot('settings-calendars');

    // A recurring event is refused by the API under the same field (`ical`); nothing changes.
    const ical = (event: string) => `BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n${event}END:VCALENDAR\n`;
    await name.fill('holidays:de-berlin');
    await dates.fill(ical(`BEGIN:VEVENT\nDTSTART;VALUE=DATE:${y}1224\nRRULE:FREQ=YEARLY\nEND:VEVENT\n`));
    await save.click();
    await datesError.waitFor();
    expect(await datesError.textContent()).toContain('recurring events are not supported');
    expect((await api('GET', '/api/v1/calendars/holidays:de-berlin')).body.dates).toHaveLength(4);

    // Replaced from pasted iCalendar text: a two-day all-day event and a timed one.
    const text = ical(
      `BEGIN:VEVENT\nDTSTART;VALUE=DATE:${y}1224\nDTEND;VALUE=DATE:${y}1226\nSUMMARY:Christmas\nEND:VEVENT\n` +
        `BEGIN:VEVENT\nDTSTART:${y}0501T090000\nSUMMARY:Labour day\nEND:VEVENT\n`,
    );
    await dates.fill(text);
    await save.click();
    await page
      .getByText('Replaced the dates of holidays:de-berlin: 3 dates. Jobs that exclude it plan again at once.')
      .waitFor();
    expect(lastSent('PUT', /calendars/)!.body).toEqual({ ical: text });
    await waitFor(async () => (await row.locator('td').nth(1).textContent()) === '3');
    expect(await cells()).toEqual([
      'holidays:de-berlin',
      '3',
      `${y}-05-01, ${y}-12-24, ${y}-12-25`,
      `${y}-05-01 – ${y}-12-25`,
    ]);

    // Edit fills the form with its dates, one a line.
    await page.getByRole('button', { name: 'Edit holidays:de-berlin' }).click();
    await waitFor(async () => (await name.inputValue()) === 'holidays:de-berlin');
    expect(await activeId()).toBe('calendar-name');
    expect(await dates.inputValue()).toBe(`${y}-05-01\n${y}-12-24\n${y}-12-25`);

    // In use by a job: the API's 409 is shown and the calendar stays.
    const job = await api('POST', '/api/v1/jobs', {
      name: 'berlin report',
      schedule: { expr: 'every weekday at 9am except holidays:de-berlin' },
      sink: { kind: 'webhook', config: { url: `${hook.url}/berlin` } },
    });
    expect(job.status).toBe(201);
    await page.getByRole('button', { name: 'Delete holidays:de-berlin' }).click();
    await page.getByRole('alert').filter({ hasText: 'is used by 1 job(s)' }).waitFor();
    expect((await api('GET', '/api/v1/calendars/holidays:de-berlin')).status).toBe(200);

    expect((await api('DELETE', `/api/v1/jobs/${job.body.id}`)).status).toBe(204);
    await page.getByRole('button', { name: 'Delete holidays:de-berlin' }).click();
    await page.getByText('Deleted holidays:de-berlin.').waitFor();
    await page.getByText('No calendars.').waitFor();
    expect((await api('GET', '/api/v1/calendars/holidays:de-berlin')).status).toBe(404);
  });

  it('should fit every new page in 360 px', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    for (const [path, ready] of [
      ['/settings/alerts', 'alert-channels'],
      ['/settings/audit-log', 'audit-log'],
      ['/settings/workspace', null],
      ['/settings/calendars', 'calendar-form'],
    ] as const) {
      await page.goto(stack.baseUrl + path);
      if (ready) {
        await page.getByTestId(ready).waitFor();
      } else {
        await page.getByLabel('Slug').waitFor();
      }
      expect({ path, overflowing: await overflowing() }).toEqual({ path, overflowing: [] });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
