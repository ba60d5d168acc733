import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks();
  const dataSource = app.get(DataSource);
  process.once('beforeExit', () => void dataSource.destroy());
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
