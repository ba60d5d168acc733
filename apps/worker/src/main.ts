import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@svc/common';
import { startTracing } from '@svc/common/tracing';
import { Runtime } from '@temporalio/worker';
import { DataSource } from 'typeorm';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadConfig();
  const { metrics, http } = config;
  // Before the worker exists: its activity spans and the workflow span sink need the SDK.
  startTracing(config, 'worker');
  if (metrics.temporal_sdk_port > 0) {
    // The SDK's own worker metrics (task slots, poll latencies, sticky cache …), before any
    // connection exists: the runtime is installed once per process.
    Runtime.install({
      telemetryOptions: { metrics: { prometheus: { bindAddress: `${http.host}:${metrics.temporal_sdk_port}` } } },
    });
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks();
  const dataSource = app.get(DataSource);
  process.once('beforeExit', () => void dataSource.destroy());
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
