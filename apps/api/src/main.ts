import { loadConfig } from '@svc/common';
import { startTracing } from '@svc/common/tracing';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the app exists, so every request span has a tracer behind it.
  startTracing(config, 'api');
  const app = await createApp({ config });
  await app.listen(config.http.port, config.http.host);
  console.log(`API listening on ${await app.getUrl()}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
