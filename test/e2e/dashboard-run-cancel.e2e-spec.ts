import type { Browser, Page } from 'playwright-core';
import { DEV_SIGN_IN, launchDashboardChromium, signedInPage } from '../utils/dashboard';
import { waitFor } from '../utils/receiver';
import { useStackAndReceiver } from '../utils/stack';

/**
 * Issue 44 in a real browser: a run waiting for its retry shows `deferred` with a hover text that
 * says what that means, and is cancelled from its page after a confirm; the page then shows
 * `cancelled` and the button is gone.
 */
jest.setTimeout(120_000);

describe('dashboard: cancel a run', () => {
  const e2e = useStackAndReceiver({
    config: { auth: DEV_SIGN_IN },
    respond: () => ({ status: 500, body: 'receiver down' }),
  });
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchDashboardChromium();
    page = await signedInPage(browser, e2e.stack.baseUrl, 'grace@example.com', {
      viewport: { width: 1280, height: 860 },
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('should explain deferred on its badge and cancel the run after a confirm', async () => {
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'cancel from the page',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/down` } },
        retry: { max_attempts: 5, initial_interval: '1h', max_interval: '1h' },
      })
    ).body as { id: string };
    const runId = (await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id as string;
    await waitFor(async () => (await e2e.api('GET', `/api/v1/runs/${runId}`)).body?.status === 'deferred');

    await page.goto(`${e2e.stack.baseUrl}/runs/${runId}`);
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
    expect((await e2e.api('GET', `/api/v1/runs/${runId}`)).body.status).toBe('cancelled');
    const audit = (await e2e.api('GET', `/api/v1/audit-log?action=run.cancel&target=${runId}`)).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0].actor).toMatch(/^user:/);
  });
});
