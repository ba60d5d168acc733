import type { Browser, Page } from 'playwright-core';
import { DEV_SIGN_IN, launchDashboardChromium, signedInPage } from '../utils/dashboard';
import { WebhookReceiver, waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Issue 44 in a real browser: a run waiting for its retry shows `deferred` with a hover text that
 * says what that means, and is cancelled from its page after a confirm; the page then shows
 * `cancelled` and the button is gone.
 */
jest.setTimeout(120_000);

describe('dashboard: cancel a run', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    browser = await launchDashboardChromium();
    receiver = await WebhookReceiver.start();
    receiver.respondWith(() => ({ status: 500, body: 'receiver down' }));
    stack = await startStack({ config: { auth: DEV_SIGN_IN } });
    api = apiClient(stack.baseUrl, stack.apiKey);
    page = await signedInPage(browser, stack.baseUrl, 'grace@example.com', { viewport: { width: 1280, height: 860 } });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.stop();
  });

  it('should explain deferred on its badge and cancel the run after a confirm', async () => {
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'cancel from the page',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/down` } },
        retry: { max_attempts: 5, initial_interval: '1h', max_interval: '1h' },
      })
    ).body as { id: string };
    const runId = (await api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id as string;
    await waitFor(async () => (await api('GET', `/api/v1/runs/${runId}`)).body?.status === 'deferred');

    await page.goto(`${stack.baseUrl}/runs/${runId}`);
    const badge = page.locator('.page-head .badge');
    await badge.getByText('deferred').waitFor();
    expect(await badge.getAttribute('title')).toMatch(/^Deferred: waiting, not failed\./);

    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await badge.getByText('cancelled').waitFor();
    expect(asked).toContain(`Cancel run ${runId}?`);
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    expect((await api('GET', `/api/v1/runs/${runId}`)).body.status).toBe('cancelled');
    const audit = (await api('GET', `/api/v1/audit-log?action=run.cancel&target=${runId}`)).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0].actor).toMatch(/^user:/);
  });
});
