import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  NonRetryableError,
  ScheduledJob,
  type ScheduledJobContext,
  ScheduledJobsHealthIndicator,
  ScheduledJobsModule,
} from '../src';
import { JOB_KEY_HEADER } from '../src/job-set';
import { deriveSigningSecret } from '../src/verify';

/** A stand-in for the service's apply endpoint: records each body, answers what the test says. */
class FakeService {
  bodies: Array<{ managed_by: string; prune: boolean; jobs: Array<Record<string, unknown>> }> = [];
  answer: (body: FakeService['bodies'][number]) => { status: number; body: unknown } = (body) => ({
    status: 200,
    body: { created: body.jobs.map((j) => j.key), updated: [], unchanged: [], deleted: [] },
  });
  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeService> {
    const holder: { self?: FakeService } = {};
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as FakeService['bodies'][number];
        expect(req.url).toBe('/api/v1/jobs/apply');
        expect(req.headers.authorization).toBe('Bearer svc_test_key');
        const self = holder.self!;
        self.bodies.push(body);
        const answer = self.answer(body);
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.self = new FakeService(server);
    return holder.self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const calls: ScheduledJobContext[] = [];

@Injectable()
class ReportService {
  @ScheduledJob({ key: 'reports.send', schedule: 'every 5 seconds', timeout: '10s' })
  send(context: ScheduledJobContext): void {
    calls.push(context);
  }

  @ScheduledJob({ key: 'reports.purge', schedule: 'every day at 3am', timezone: 'Europe/Paris' })
  purge(): void {
    throw new NonRetryableError('nothing to purge');
  }

  notScheduled(): void {}
}

@Injectable()
class BillingService {
  @ScheduledJob({ key: 'billing.close-day', schedule: 'every mondy' })
  closeDay(): void {}
}

@Injectable()
class DuplicateService {
  @ScheduledJob({ key: 'reports.send', schedule: 'every hour' })
  again(): void {}
}

async function boot(
  serviceUrl: string,
  providers: Array<new (...args: never[]) => unknown>,
): Promise<NestFastifyApplication> {
  @Module({
    imports: [
      ScheduledJobsModule.forRoot({
        baseUrl: serviceUrl,
        apiKey: 'svc_test_key',
        owner: 'app:test',
        receiver: { path: '/scheduled-jobs', publicUrl: 'http://app.test/scheduled-jobs' },
        retry: { initialDelayMs: 20, maxDelayMs: 50 },
      }),
    ],
    providers,
  })
  class AppModule {}
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

function signedDelivery(key: string, runId: string, secret = deriveSigningSecret('svc_test_key', 'app:test')) {
  const payload = JSON.stringify({ run_id: runId, job_id: 'job_1', scheduled_at: '2026-11-28T01:00:00Z', attempt: 0 });
  const at = new Date();
  return {
    payload,
    headers: {
      'content-type': 'application/json',
      'webhook-id': runId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(runId, at, payload),
      'svc-attempt': '0',
      'svc-scheduled-at': '2026-11-28T01:00:00Z',
      [JOB_KEY_HEADER]: key,
    },
  };
}

describe('ScheduledJobsModule', () => {
  let service: FakeService;
  const apps: NestFastifyApplication[] = [];

  beforeEach(async () => {
    service = await FakeService.start();
    calls.length = 0;
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await service.stop();
  });

  it('should discover every decorated method and apply them as one owned set with prune', async () => {
    const app = await boot(service.url, [ReportService]);
    apps.push(app);
    expect(service.bodies).toHaveLength(1);
    const [body] = service.bodies;
    expect(body).toMatchObject({ managed_by: 'app:test', prune: true, dry_run: false });
    expect(body.jobs.map((j) => [j.key, j.name, j.schedule])).toEqual([
      ['reports.send', 'ReportService.send', { expr: 'every 5 seconds' }],
      ['reports.purge', 'ReportService.purge', { expr: 'every day at 3am', timezone: 'Europe/Paris' }],
    ]);
    expect(body.jobs[0]).toMatchObject({
      timeout: '10s',
      signing_secret: deriveSigningSecret('svc_test_key', 'app:test'),
      sink: {
        kind: 'webhook',
        config: { url: 'http://app.test/scheduled-jobs', headers: { [JOB_KEY_HEADER]: 'reports.send' } },
      },
    });
    await expect(app.get(ScheduledJobsHealthIndicator).isHealthy()).resolves.toEqual({
      'scheduled-jobs': { status: 'up', applied_at: expect.any(String) },
    });
  });

  it('should serve deliveries on its own route: verified, called once, errors mapped, bad signatures refused', async () => {
    const app = await boot(service.url, [ReportService]);
    apps.push(app);
    const fastify = app.getHttpAdapter().getInstance();
    /** POSTs a signed delivery to the module's route. */
    const deliver = (delivery: ReturnType<typeof signedDelivery>) =>
      fastify.inject({ method: 'POST', url: '/scheduled-jobs', headers: delivery.headers, payload: delivery.payload });
    const send = signedDelivery('reports.send', 'run_A');
    const first = await deliver(send);
    expect([first.statusCode, first.json()]).toEqual([200, { ok: true }]);
    const replay = await deliver(send);
    expect([replay.statusCode, replay.json()]).toEqual([200, { ok: true, replayed: true }]);
    expect(calls.map((c) => [c.jobKey, c.runId])).toEqual([['reports.send', 'run_A']]);

    const purge = signedDelivery('reports.purge', 'run_B');
    const fatal = await deliver(purge);
    expect([fatal.statusCode, fatal.json()]).toEqual([422, { error: 'ReportService.purge: nothing to purge' }]);

    const forged = signedDelivery('reports.send', 'run_C', `whsec_${Buffer.alloc(32, 9).toString('base64')}`);
    const refused = await deliver(forged);
    expect(refused.statusCode).toBe(401);
    expect(calls).toHaveLength(1);
  });

  it('should fail bootstrap with the service’s validation message naming the method', async () => {
    service.answer = () => ({
      status: 400,
      body: {
        error: {
          code: 'validation_failed',
          message: 'Invalid job set',
          fields: { 'jobs[0].schedule.expr': 'unknown word "mondy"; it could be "monday"' },
        },
      },
    });
    await expect(boot(service.url, [BillingService])).rejects.toThrow(
      'BillingService.closeDay: unknown word "mondy"; it could be "monday"',
    );
  });

  it('should fail bootstrap on one key declared twice, before calling the service', async () => {
    await expect(boot(service.url, [ReportService, DuplicateService])).rejects.toThrow(
      'DuplicateService.again: key "reports.send" is already declared by ReportService.send',
    );
    expect(service.bodies).toHaveLength(0);
  });

  it('should start while the service is unreachable, report down, and apply once it answers', async () => {
    let failing = 3;
    const answer = service.answer;
    service.answer = (body) =>
      failing-- > 0 ? { status: 503, body: { error: { code: 'unavailable', message: 'starting' } } } : answer(body);
    const app = await boot(service.url, [ReportService]);
    apps.push(app);
    const health = app.get(ScheduledJobsHealthIndicator);
    await expect(health.isHealthy()).rejects.toMatchObject({
      isHealthCheckError: true,
      causes: { 'scheduled-jobs': { status: 'down', reason: 'not applied yet' } },
    });
    const deadline = Date.now() + 5000;
    while (service.bodies.length < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(service.bodies).toHaveLength(4);
    await expect(health.isHealthy()).resolves.toMatchObject({ 'scheduled-jobs': { status: 'up' } });
  });

  it('should start with no service listening at all', async () => {
    const gone = service.url;
    await service.stop();
    service = await FakeService.start(); // for afterEach
    const app = await boot(gone, [ReportService]);
    apps.push(app);
    await expect(app.get(ScheduledJobsHealthIndicator).isHealthy()).rejects.toMatchObject({
      causes: { 'scheduled-jobs': { status: 'down', last_error: expect.stringContaining('unreachable') } },
    });
  });
  it('should take its options from a factory with injected providers (forRootAsync, as with ConfigService)', async () => {
    @Injectable()
    class Settings {
      readonly values: Record<string, string> = { SVC_BASE_URL: service.url, OWNER: 'app:from-config' };
      getOrThrow(name: string): string {
        return this.values[name];
      }
    }
    @Module({ providers: [Settings], exports: [Settings] })
    class SettingsModule {}
    @Module({
      imports: [
        ScheduledJobsModule.forRootAsync({
          imports: [SettingsModule],
          inject: [Settings],
          useFactory: (settings: Settings) => ({
            baseUrl: settings.getOrThrow('SVC_BASE_URL'),
            apiKey: 'svc_test_key',
            owner: settings.getOrThrow('OWNER'),
            receiver: { path: '/jobs-in', publicUrl: 'http://app.test/jobs-in' },
          }),
        }),
      ],
      providers: [ReportService],
    })
    class AsyncModule {}
    const app = await NestFactory.create<NestFastifyApplication>(AsyncModule, new FastifyAdapter(), { logger: false });
    apps.push(app);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    expect(service.bodies.map((b) => [b.managed_by, b.jobs.length])).toEqual([['app:from-config', 2]]);
    const send = signedDelivery('reports.send', 'run_async', deriveSigningSecret('svc_test_key', 'app:from-config'));
    const res = await app
      .getHttpAdapter()
      .getInstance()
      .inject({ method: 'POST', url: '/jobs-in', headers: send.headers, payload: send.payload });
    expect(res.statusCode).toBe(200);
    expect(calls.map((c) => c.runId)).toEqual(['run_async']);
  });
});
