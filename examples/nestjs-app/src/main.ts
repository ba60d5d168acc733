import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const release = process.env.EXAMPLE_RELEASE === 'next' ? 'next' : 'current';
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register({ release }), new FastifyAdapter());
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  console.log(`nestjs example (${release}) listening on ${await app.getUrl()}`);
}

void main();
