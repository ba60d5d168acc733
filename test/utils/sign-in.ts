import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { buildConfig } from '@svc/common';
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createApp } from '../../apps/api/src/app';
import type { Stack } from './stack';

/**
 * What the sign-in e2e specs (oidc, sign-in-providers) share: a Chromium that reaches only this
 * machine, and an API configured with sign-in providers over a stack's database and Temporal.
 */

export { freePort } from './processes';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium for the specs (refused early, with the fix named, where the machine has none). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (scripts/test.sh does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A fresh browser that reaches only this machine (a provider's page names a web font). */
export async function newLocalPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  return { context, page: await context.newPage() };
}

/**
 * An API listening on 127.0.0.1:`port` (its public URL), signing in with `auth` (the config's
 * `auth` section), on `stack`'s database and Temporal, without rate limits or metrics.
 */
export async function startSignInApi(
  stack: Stack,
  port: number,
  auth: Record<string, unknown>,
): Promise<NestFastifyApplication> {
  const config = buildConfig(
    {
      public_url: `http://127.0.0.1:${port}`,
      auth,
      limits: { api_rate_limit_per_minute: 0 },
      secrets: stack.config.secrets,
      metrics: { enabled: false },
    },
    {
      DATABASE_URL: stack.config.database.url,
      TEMPORAL_ADDRESS: stack.config.temporal.address,
      PORT: String(port),
    },
  );
  const app = await createApp({ config, logLevels: ['error'] });
  await app.listen(port, '127.0.0.1');
  return app;
}
