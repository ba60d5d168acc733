import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from './sign-in';

/**
 * What the dashboard e2e specs share: the built dashboard, Chromium, and a page signed in with the
 * dev sign-in (every new user an owner of the workspace `acme`).
 */

export const DASHBOARD_BUILD = resolve(__dirname, '../../dist/dashboard/index.html');

/** The stack's `auth` section for the dashboard specs. */
export const DEV_SIGN_IN = { dev_login: true, join_workspace: 'acme', join_role: 'owner' };

/** Chromium for a dashboard spec: refused early, with the fix named, without a built dashboard or a Chromium. */
export function launchDashboardChromium(): Promise<Browser> {
  if (!existsSync(DASHBOARD_BUILD)) {
    throw new Error(`${DASHBOARD_BUILD} is missing: run npm run build first`);
  }
  return launchChromium();
}

/**
 * A new page of `browser` (in a context with `options`) signed in to the dashboard at `baseUrl` as
 * `email`, once the jobs list shows; `watch` gets the page first (listeners for what it sends).
 */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  email: string,
  options: BrowserContextOptions,
  watch?: (page: Page) => void,
): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  watch?.(page);
  await page.goto(baseUrl + '/');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  return page;
}

/**
 * Elements of `page` reaching past the viewport's right edge, outside the tables that scroll in
 * their own region (`.table-wrap`), and the document itself when it scrolls sideways.
 */
export function overflowing(page: Page): Promise<string[]> {
  // Runs in the page; the test's own types have no DOM, hence the loose typing.
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width: number = doc.documentElement.clientWidth;
    const offenders = [...doc.querySelectorAll('body *')]
      .filter((el: any) => el.closest('.table-wrap') === null && el.getBoundingClientRect().right > width + 0.5)
      .map(
        (el: any) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`,
      );
    const scroll: number = doc.documentElement.scrollWidth;
    return scroll > width ? [...offenders, `document ${scroll} px`] : offenders;
  });
}
