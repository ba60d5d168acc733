import { loadConfig } from '@svc/common';
import { portInUseError } from '@svc/common/port-in-use';
import { createLogger } from '@svc/common/logging';
import { startTracing } from '@svc/common/tracing';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the app exists, so every request span has a tracer behind it.
  startTracing(config, 'api');
  const logger = createLogger({ name: 'api', level: config.log.level });
  const app = await createApp({ config, logger });
  const { host, port } = config.http;
  await app.listen(port, host).catch((err: unknown) => {
    throw portInUseError(err, { what: 'The API', host, port, env: 'PORT', key: 'http.port', off: false });
  });
  logger.info({ url: await app.getUrl() }, 'API listening');
}

main().catch((err) => {
  // A JSON line like every other (the configuration may be what failed, so at the default level).
  createLogger({ name: 'api' }).fatal({ err }, err instanceof Error ? err.message : String(err));
  process.exit(1);
});
