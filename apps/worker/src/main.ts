import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@svc/common';
import { portInUseError } from '@svc/common/port-in-use';
import { createLogger } from '@svc/common/logging';
import { PinoNestLogger } from '@svc/common/nest-logger';
import { startTracing } from '@svc/common/tracing';
import { Runtime } from '@temporalio/worker';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { TemporalPinoLogger } from './temporal/logging';
import { WorkerRuntime } from './temporal/worker-runtime';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  // A stop asked for while the worker starts (Ctrl-C on start.sh, a SIGTERM from the supervisor)
  // is kept until the app can shut down: Nest's own hooks are installed only once it has started,
  // and the SDK's signal handler stops only the Temporal workers made so far, so without this the
  // process would go on running its periodic passes with no worker and never exit.
  let stopAskedBy: NodeJS.Signals | null = null;
  const keepStop = (signal: NodeJS.Signals) => {
    stopAskedBy ??= signal;
  };
  for (const signal of STOP_SIGNALS) {
    process.on(signal, keepStop);
  }
  const config = loadConfig();
  const { metrics, http } = config;
  // Before the worker exists: its activity spans and the workflow span sink need the SDK.
  startTracing(config, 'worker');
  const logger = createLogger({ name: 'worker', level: config.log.level });
  // Once per process, before any connection: the SDK's lines, the Rust core's forwarded ones
  // (warnings and up) and, when enabled, the SDK's own worker metrics (task slots, poll
  // latencies, sticky cache …).
  try {
    Runtime.install({
      logger: new TemporalPinoLogger(logger),
      telemetryOptions: {
        logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
        ...(metrics.temporal_sdk_port > 0
          ? { metrics: { prometheus: { bindAddress: `${http.host}:${metrics.temporal_sdk_port}` } } }
          : {}),
      },
    });
  } catch (err) {
    throw portInUseError(err, {
      what: "The Temporal SDK's worker metrics",
      host: http.host,
      port: metrics.temporal_sdk_port,
      env: 'METRICS_TEMPORAL_SDK_PORT',
      key: 'metrics.temporal_sdk_port',
    });
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: new PinoNestLogger(logger),
    // A provider that cannot start (PostgreSQL, Temporal) rejects here and ends in the fatal line
    // below, as a failure on bootstrap does; Nest logs it once more (error, ExceptionHandler)
    // instead of exiting on its own without that line.
    abortOnError: false,
  });
  for (const signal of STOP_SIGNALS) {
    process.off(signal, keepStop);
  }
  const dataSource = app.get(DataSource);
  process.once('beforeExit', () => void dataSource.destroy());
  if (stopAskedBy !== null) {
    logger.info(`${stopAskedBy} while starting: shutting down`);
    await app.close();
    process.exit(0);
  }
  app.enableShutdownHooks();
  // A Temporal worker that stopped by itself leaves this process half running (its periodic
  // passes, the other task queues): it stops whole and exits 1, for its supervisor to restart it.
  void app
    .get(WorkerRuntime)
    .failure.then(async (err) => {
      logger.fatal({ err }, `${err.message}; stopping the worker process`);
      // Bounded by the grace time: the other workers' polls may never end when the namespace is
      // gone (sdk-core), and a process that has to exit must not hang on them.
      await Promise.race([app.close(), delay(config.worker.shutdown_grace_time_ms + 10_000)]);
    })
    .finally(() => process.exit(1));
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

main().catch((err) => {
  // A JSON line like every other (the configuration may be what failed, so at the default level).
  createLogger({ name: 'worker' }).fatal({ err }, err instanceof Error ? err.message : String(err));
  process.exit(1);
});
