/**
 * HTTP benchmark of the public schedule endpoints (issue #3 → "Done when"). Not a test.
 * Run: node -r @swc-node/register bench/schedule-endpoints.ts [seconds=10] [connections=10]
 *
 * In one process: the API's SchedulesModule in a Nest + Fastify app configured like `createApp`
 * (same adapter options, X-Request-ID hook, error handler, error filter and global ValidationPipe;
 * rate limit off), and a bare Fastify route that parses the same JSON body and returns a constant,
 * as the ceiling. autocannon drives each target on 127.0.0.1 from a worker thread, so the load
 * generator does not share the servers' event loop (it still shares the machine's cores).
 *
 * Left out of the Nest app, on purpose: the database, Temporal and the global ApiKeyGuard (which
 * returns at once for @Public() routes); the schedule endpoints touch none of them.
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { buildConfig } from '@svc/common';
import autocannon from 'autocannon';
import { IsInt, IsOptional, IsString } from 'class-validator';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { ErrorFilter, toErrorResponse } from '../apps/api/src/common/error.filter';
import { createValidationPipe } from '../apps/api/src/common/validation';
import { ConfigModule } from '../apps/api/src/config/config.module';
import { SchedulesModule } from '../apps/api/src/schedules/schedules.module';
import { SchedulesService } from '../apps/api/src/schedules/schedules.service';

/** A preview-shaped body validated the Nest way (class-validator), for the framework-share row. */
class NoopBody {
  @IsString()
  expr: string;

  @IsOptional()
  @IsInt()
  count?: number;

  @IsOptional()
  @IsString()
  kind?: string;

  @IsOptional()
  @IsString()
  timezone?: string;

  @IsOptional()
  @IsString()
  after?: string;
}

/** The same request through Nest and the ValidationPipe, without schedule work: the framework's share. */
@Controller('bench')
class NoopController {
  @Post('noop')
  @HttpCode(200)
  noop(@Body() body: NoopBody) {
    return { ok: true, expr: body.expr };
  }
}

const DURATION_S = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 10);
const ONE_MIB = 1024 * 1024;

async function startSchedulesApi(): Promise<{ url: string; service: SchedulesService; close: () => Promise<void> }> {
  const config = buildConfig(
    { limits: { schedule_rate_limit_per_minute: 0 } },
    { DATABASE_URL: 'postgres://unused@127.0.0.1/unused' },
  );
  @Module({ imports: [ConfigModule.forRoot(config), SchedulesModule], controllers: [NoopController] })
  class BenchModule {}
  const adapter = new FastifyAdapter({
    bodyLimit: ONE_MIB,
    trustProxy: false,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-ID', request.id);
  });
  fastify.setErrorHandler((err, _request, reply) => {
    const { status, body } = toErrorResponse(err);
    void reply.status(status).send({ error: body });
  });
  const app = await NestFactory.create<NestFastifyApplication>(BenchModule, adapter, { logger: ['error'] });
  app.useGlobalFilters(new ErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  await app.listen(0, '127.0.0.1');
  return {
    url: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
    service: app.get(SchedulesService),
    close: () => app.close(),
  };
}

async function startBare(): Promise<{ url: string; close: () => Promise<void> }> {
  const fastify = Fastify({ bodyLimit: ONE_MIB });
  fastify.post('/bare', async () => ({ ok: true }));
  const address = await fastify.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, close: () => fastify.close() };
}

interface Row {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(target: string, url: string, body: unknown): Promise<Row> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections: CONNECTIONS,
    duration: DURATION_S,
    workers: 1,
  });
  return {
    target,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * Calls per second of the service method alone (no HTTP): the ceiling the schedule work sets.
 * Errors are counted, not thrown: on a starved CPU a call can outlive the 100 ms wall-clock budget.
 */
function inProcess(fn: () => unknown, ms = 3_000): { ops: number; meanUs: number; errors: number } {
  let errors = 0;
  const call = () => {
    try {
      fn();
    } catch {
      errors++;
    }
  };
  for (let i = 0; i < 500; i++) {
    call();
  }
  errors = 0;
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) {
      call();
    }
    n += 20;
    now = performance.now();
  }
  return { ops: (n * 1000) / (now - start), meanUs: ((now - start) * 1000) / n, errors };
}

async function main(): Promise<void> {
  const api = await startSchedulesApi();
  const bare = await startBare();
  const cases: Array<[string, string, unknown]> = [
    ['bare Fastify route', `${bare.url}/bare`, { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', count: 10 }],
    [
      'Nest + ValidationPipe, no schedule work',
      `${api.url}/bench/noop`,
      { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', count: 10 },
    ],
    ['validate (cron)', `${api.url}/api/v1/schedules/validate`, { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin' }],
    [
      'preview (cron, count 10)',
      `${api.url}/api/v1/schedules/preview`,
      { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', count: 10 },
    ],
    [
      'validate (natural)',
      `${api.url}/api/v1/schedules/validate`,
      { expr: 'every weekday at 9am', timezone: 'Europe/Berlin' },
    ],
    [
      'preview (natural, count 10)',
      `${api.url}/api/v1/schedules/preview`,
      { expr: 'every weekday at 9am', timezone: 'Europe/Berlin', count: 10 },
    ],
  ];
  // a warm-up pass so the first measured target does not pay for JIT compilation
  for (const [, url, body] of cases) {
    await autocannon({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      connections: CONNECTIONS,
      duration: 2,
    });
  }
  const rows: Row[] = [];
  for (const [target, url, body] of cases) {
    rows.push(await load(target, url, body));
    process.stderr.write(`done: ${target}\n`);
  }
  const services: Array<[string, () => unknown]> = [
    ['validate (cron)', () => api.service.validate({ expr: '0 9 * * 1-5', timezone: 'Europe/Berlin' })],
    [
      'preview (cron, count 10)',
      () => api.service.preview({ expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', count: 10 }),
    ],
    ['validate (natural)', () => api.service.validate({ expr: 'every weekday at 9am', timezone: 'Europe/Berlin' })],
    [
      'preview (natural, count 10)',
      () => api.service.preview({ expr: 'every weekday at 9am', timezone: 'Europe/Berlin', count: 10 }),
    ],
  ];
  const serviceRows = services.map(([name, fn]) => ({ name, ...inProcess(fn) }));
  await api.close();
  await bare.close();

  const bareRps = rows[0].rps;
  console.log(
    `Node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}); autocannon ${CONNECTIONS} connections, ${DURATION_S} s per target, 1 worker thread\n`,
  );
  console.log('| target | req/s | p50 ms | p99 ms | vs bare | non-2xx | errors |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.target} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${((100 * r.rps) / bareRps).toFixed(0)}% | ${r.non2xx} | ${r.errors} |`,
    );
  }
  console.log('\nSchedulesService alone, in process (no HTTP, one thread):\n');
  console.log('| call | calls/s | mean µs | errors |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of serviceRows) {
    console.log(`| ${r.name} | ${Math.round(r.ops)} | ${Math.round(r.meanUs)} | ${r.errors} |`);
  }
  const previewRatio = rows.find((r) => r.target.startsWith('preview (cron'))!.rps / bareRps;
  console.log(`\npreview / bare = ${(100 * previewRatio).toFixed(1)}% (goal >= 50%)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
