/**
 * HTTP benchmark of the public schedule endpoints (issue #3 → "Done when"). Not a test.
 * Run: node -r @swc-node/register bench/schedule-endpoints.ts [seconds=5] [connections=10] [rounds=3] [target regex]
 *
 * In one process: the API's SchedulesModule in a Nest + Fastify app on the API's own Fastify
 * adapter (`createFastifyAdapter`: options, X-Request-ID hook, request logging with its access line
 * written to /dev/null, error handler) with its error filter
 * and global ValidationPipe (rate limit off), and a bare Fastify route that parses the same JSON body and returns a constant,
 * as the ceiling. autocannon drives each target on 127.0.0.1 from a worker thread, so the load
 * generator does not share the servers' event loop (it still shares the machine's cores).
 *
 * Left out of the Nest app, on purpose: the database, Temporal and the global ApiKeyGuard (which
 * returns at once for @Public() routes); the schedule endpoints touch none of them.
 */
import 'reflect-metadata';
import { Body, Controller, Global, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { buildConfig } from '@svc/common';
import { createLogger } from '@svc/common/logging';
import { RateLimitsRepository } from '@svc/persistence';
import autocannon from 'autocannon';
import { IsInt, IsOptional, IsString } from 'class-validator';
import Fastify from 'fastify';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createFastifyAdapter } from '../apps/api/src/app';
import { ErrorFilter } from '../apps/api/src/common/error.filter';
import { createValidationPipe } from '../apps/api/src/common/validation';
import { ConfigModule } from '../apps/api/src/config/config.module';
import { SchedulesModule } from '../apps/api/src/schedules/schedules.module';
import { SchedulesService } from '../apps/api/src/schedules/schedules.service';
import { callFor } from './call-for';

// the same generator autocannon's worker loads
const { expression: tenKExpression } = require('./distinct-10k-body.js') as {
  expression: (i: number, mix: boolean) => string;
};

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

const DURATION_S = Number(process.argv[2] ?? 5);
const CONNECTIONS = Number(process.argv[3] ?? 10);
const ROUNDS = Number(process.argv[4] ?? 3);
/** Optional: only targets whose name matches this regular expression (the bare route always runs). */
const ONLY = process.argv[5] ? new RegExp(process.argv[5]) : null;

async function startSchedulesApi(): Promise<{ url: string; service: SchedulesService; close: () => Promise<void> }> {
  const config = buildConfig(
    { limits: { schedule_rate_limit_per_minute: 0, store: 'memory' } },
    { DATABASE_URL: 'postgres://unused@127.0.0.1/unused' },
  );
  // The schedule routes take the rate-limit store's repository; with the limit off it is never used.
  @Global()
  @Module({ providers: [{ provide: RateLimitsRepository, useValue: {} }], exports: [RateLimitsRepository] })
  class NoDatabaseModule {}
  @Module({
    imports: [ConfigModule.forRoot(config), NoDatabaseModule, SchedulesModule],
    controllers: [NoopController],
  })
  class BenchModule {}
  // The API's access line per request, written (synchronously, as to a file) where nobody reads it.
  const logger = createLogger({ name: 'api', destination: pino.destination({ dest: '/dev/null', sync: true }) });
  const adapter = createFastifyAdapter(false, undefined, false, logger);
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
  const fastify = Fastify({ bodyLimit: 1024 * 1024 }); // the API's limit
  fastify.post('/bare', async () => ({ ok: true }));
  const address = await fastify.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, close: () => fastify.close() };
}

interface Target {
  name: string;
  url: string;
  body: unknown;
  /** A file exporting an autocannon `setupRequest` that varies the body per request. */
  setupRequest?: string;
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(target: Target, duration: number): Promise<Sample> {
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(target.body),
    requests: target.setupRequest ? [{ setupRequest: target.setupRequest }] : undefined,
    connections: CONNECTIONS,
    duration,
    workers: 1,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

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
  const { calls, elapsedMs } = callFor(call, ms);
  return { ops: (calls * 1000) / elapsedMs, meanUs: (elapsedMs * 1000) / calls, errors };
}

async function main(): Promise<void> {
  const api = await startSchedulesApi();
  const bare = await startBare();
  const cron = { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin' };
  const natural = { expr: 'every weekday at 9am', timezone: 'Europe/Berlin' };
  const targets: Target[] = [
    { name: 'bare Fastify route', url: `${bare.url}/bare`, body: { ...cron, count: 10 } },
    // The same route fed by the same per-request body generator as the distinct-expression targets:
    // building each request costs the load generator CPU on the same two cores, so those targets
    // are compared with this row (same generator, no schedule work) as well as with the first.
    {
      name: 'bare Fastify route, 10 000 distinct mixed bodies',
      url: `${bare.url}/bare`,
      body: { ...cron, count: 10 },
      setupRequest: join(__dirname, 'distinct-10k-mixed-body.js'),
    },
    { name: 'Nest + ValidationPipe, no schedule work', url: `${api.url}/bench/noop`, body: { ...cron, count: 10 } },
    { name: 'validate (cron)', url: `${api.url}/api/v1/schedules/validate`, body: cron },
    { name: 'preview (cron, count 10)', url: `${api.url}/api/v1/schedules/preview`, body: { ...cron, count: 10 } },
    { name: 'validate (natural)', url: `${api.url}/api/v1/schedules/validate`, body: natural },
    {
      name: 'preview (natural, count 10)',
      url: `${api.url}/api/v1/schedules/preview`,
      body: { ...natural, count: 10 },
    },
    {
      name: 'preview (cron, count 10), a new expression every request',
      url: `${api.url}/api/v1/schedules/preview`,
      body: { ...cron, count: 10 },
      setupRequest: join(__dirname, 'distinct-cron-body.js'),
    },
    {
      name: 'preview (cron, count 10), 10 000 distinct expressions',
      url: `${api.url}/api/v1/schedules/preview`,
      body: { ...cron, count: 10 },
      setupRequest: join(__dirname, 'distinct-10k-body.js'),
    },
    {
      name: 'preview (count 10), 10 000 distinct cron, Quartz and natural expressions',
      url: `${api.url}/api/v1/schedules/preview`,
      body: { ...cron, count: 10 },
      setupRequest: join(__dirname, 'distinct-10k-mixed-body.js'),
    },
  ];
  if (ONLY) {
    targets.splice(0, targets.length, ...targets.filter((t, k) => k <= 1 || ONLY.test(t.name)));
  }
  // a warm-up pass so the first measured target does not pay for JIT compilation
  for (const target of targets) {
    await load(target, 2);
  }
  // Rounds interleave the targets, so a machine that gets busier or quieter during the run moves
  // the bare route and the schedule routes alike; ratios are taken within a round.
  const samples = targets.map(() => [] as Sample[]);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [k, target] of targets.entries()) {
      samples[k].push(await load(target, DURATION_S));
    }
    process.stderr.write(`round ${round}/${ROUNDS} done\n`);
  }
  /** Median over rounds of this target's req/s over the baseline's (row `base`) in the same round. */
  const ratio = (k: number, base = 0): number => median(samples[k].map((s, round) => s.rps / samples[base][round].rps));
  const generatorBase = targets.findIndex((t) => t.name === 'bare Fastify route, 10 000 distinct mixed bodies');
  let distinct = 0; // as bench/distinct-cron-body.js: more expressions than the cache holds
  let tenK = 0; // as bench/distinct-10k-body.js
  let tenKMixed = 0;
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
    [
      'preview (cron, count 10), a new expression every call',
      () => {
        const minuteOfDay = distinct++ % 1440;
        const expr = `${minuteOfDay % 60} ${Math.floor(minuteOfDay / 60)} * * 1-5`;
        return api.service.preview({ expr, timezone: 'Europe/Berlin', count: 10 });
      },
    ],
    [
      'preview (cron, count 10), 10 000 distinct expressions',
      () => api.service.preview({ expr: tenKExpression(tenK++, false), timezone: 'Europe/Berlin', count: 10 }),
    ],
    [
      'preview (count 10), 10 000 distinct cron, Quartz and natural expressions',
      () => api.service.preview({ expr: tenKExpression(tenKMixed++, true), timezone: 'Europe/Berlin', count: 10 }),
    ],
  ];
  const serviceRows = services.map(([name, fn]) => ({ name, ...inProcess(fn) }));
  await api.close();
  await bare.close();

  console.log(
    `Node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}); autocannon ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per target, 1 worker thread; medians over rounds\n`,
  );
  console.log('| target | req/s | p50 ms | p99 ms | vs bare | vs bare, same generator | non-2xx | errors |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [k, target] of targets.entries()) {
    const s = samples[k];
    const sum = (f: (x: Sample) => number): number => s.reduce((a, x) => a + f(x), 0);
    console.log(
      `| ${target.name} | ${Math.round(median(s.map((x) => x.rps)))} | ${median(s.map((x) => x.p50))} | ${median(s.map((x) => x.p99))} | ${(100 * ratio(k)).toFixed(0)}% | ${target.setupRequest && generatorBase >= 0 ? `${(100 * ratio(k, generatorBase)).toFixed(0)}%` : ''} | ${sum((x) => x.non2xx)} | ${sum((x) => x.errors)} |`,
    );
  }
  console.log('\nSchedulesService alone, in process (no HTTP, one thread):\n');
  console.log('| call | calls/s | mean µs | errors |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of serviceRows) {
    console.log(`| ${r.name} | ${Math.round(r.ops)} | ${Math.round(r.meanUs)} | ${r.errors} |`);
  }
  const per = (name: string, base = 0): string => {
    const k = targets.findIndex((t) => t.name === name);
    return k < 0 || base < 0 ? 'not run' : `${(100 * ratio(k, base)).toFixed(1)}%`;
  };
  console.log(`\npreview / bare (median of per-round ratios) = ${per('preview (cron, count 10)')} (goal >= 50%)`);
  console.log(
    `preview / bare with a new expression every request = ${per('preview (cron, count 10), a new expression every request')}`,
  );
  console.log(
    `preview / bare with 10 000 distinct expressions = ${per('preview (cron, count 10), 10 000 distinct expressions')} (goal >= 50%); mixed kinds = ${per('preview (count 10), 10 000 distinct cron, Quartz and natural expressions')}`,
  );
  console.log(
    `the same against the bare route fed by the same body generator = ${per('preview (cron, count 10), 10 000 distinct expressions', generatorBase)}; mixed kinds = ${per('preview (count 10), 10 000 distinct cron, Quartz and natural expressions', generatorBase)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
