import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ScheduledJob, ScheduledJobsModule } from '@svc/nestjs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Child, freePort } from '../utils/processes';
import { sleep, waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * The NestJS module end to end (issue 43): the service with its worker, THREE replicas of
 * examples/nestjs-app (child processes) behind one receiver URL (a round-robin proxy here), a
 * replica killed mid-run, and a fourth replica of the next release (one method removed) that
 * prunes its job. What each method handled is the example's own record in PostgreSQL
 * (`example_calls`), compared with the runs the service recorded.
 */

const OWNER = 'app:nestjs-example';
const HEARTBEAT = 'example.heartbeat';
const FLAKY = 'example.flaky';

/** One receiver URL for every replica: round robin, skipping a replica that refuses the connection. */
class RoundRobinProxy {
  readonly served = new Map<number, number>();
  private next = 0;
  private constructor(
    private readonly server: Server,
    readonly ports: number[],
  ) {}

  static async start(): Promise<RoundRobinProxy> {
    const holder: { proxy?: RoundRobinProxy } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void holder
          .proxy!.forward(req.method ?? 'POST', req.url ?? '/', req.headers, Buffer.concat(chunks))
          .then(({ status, headers, body }) => res.writeHead(status, headers).end(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.proxy = new RoundRobinProxy(server, []);
    return holder.proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async forward(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    for (let tried = 0; tried < this.ports.length; tried++) {
      const port = this.ports[this.next++ % this.ports.length];
      try {
        const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
          (resolve, reject) => {
            const out = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
              const parts: Buffer[] = [];
              res.on('data', (c: Buffer) => parts.push(c));
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(parts) }),
              );
              res.on('error', reject);
            });
            out.on('error', reject);
            out.end(body);
          },
        );
        this.served.set(port, (this.served.get(port) ?? 0) + 1);
        return answer;
      } catch (error) {
        // A dead replica refuses before reading anything: another one may take the request.
        if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') {
          return { status: 502, headers: {}, body: Buffer.from('bad gateway') };
        }
      }
    }
    return { status: 503, headers: {}, body: Buffer.from('no replica') };
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface JobRow {
  id: string;
  key: string;
  managed_by: string;
}

interface RunRow {
  id: string;
  status: string;
  attempts: number;
}

@Injectable()
class BillingService {
  @ScheduledJob({ key: 'billing.close-day', schedule: 'every mondy at 23:55' })
  closeDay(): void {}

  @ScheduledJob({ key: 'billing.report', schedule: 'every day at 6am' })
  report(): void {}
}

describe('NestJS module: three replicas of examples/nestjs-app', () => {
  let stack: Stack;
  let proxy: RoundRobinProxy;
  let api: ReturnType<typeof apiClient>;
  const replicas: Child[] = [];

  async function startReplica(name: string, release: 'current' | 'next' = 'current'): Promise<Child> {
    const port = await freePort();
    const child = await Child.start(
      name,
      process.execPath,
      ['-r', '@swc-node/register', 'examples/nestjs-app/src/main.ts'],
      {
        ...process.env,
        PORT: String(port),
        REPLICA_NAME: name,
        EXAMPLE_RELEASE: release,
        SVC_BASE_URL: stack.baseUrl,
        SVC_API_KEY: stack.apiKey,
        DATABASE_URL: stack.config.database.url,
        RECEIVER_PUBLIC_URL: `${proxy.url}/scheduled-jobs`,
      },
      (output) => output.includes('listening on'),
      90_000,
    );
    replicas.push(child);
    proxy.ports.push(port);
    return child;
  }

  async function managedJobs(): Promise<JobRow[]> {
    const res = await api('GET', '/api/v1/jobs?limit=100');
    expect(res.status).toBe(200);
    return (res.body.data as JobRow[]).filter((job) => job.managed_by === OWNER);
  }

  async function runsOf(jobId: string): Promise<RunRow[]> {
    const runs: RunRow[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await api(
        'GET',
        `/api/v1/jobs/${jobId}/runs?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      runs.push(...(res.body.data as RunRow[]));
      cursor = res.body.next_cursor;
    } while (cursor);
    return runs;
  }

  async function calls(
    jobKey: string,
  ): Promise<Array<{ run_id: string; outcome: string; replica: string; attempt: number }>> {
    return stack.dataSource.query(
      `SELECT run_id, outcome, replica, attempt FROM example_calls WHERE job_key = $1 ORDER BY id`,
      [jobKey],
    );
  }

  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack.baseUrl, stack.apiKey);
    proxy = await RoundRobinProxy.start();
  });

  afterAll(async () => {
    await Promise.all(replicas.map((child) => child.kill('SIGKILL')));
    await proxy?.stop();
    await stack?.stop();
  });

  it('should run every occurrence exactly once across replicas, through a kill and a release that prunes', async () => {
    // Three replicas booting together: one apply each, one job per key.
    const [, second] = await Promise.all([startReplica('a'), startReplica('b'), startReplica('c')]);
    const jobs = await waitFor(async () => {
      const found = await managedJobs();
      return found.length >= 2 ? found : null;
    }, 30_000);
    expect(jobs.map((job) => job.key).sort()).toEqual([HEARTBEAT, FLAKY].sort());
    const heartbeat = jobs.find((job) => job.key === HEARTBEAT)!;
    const flaky = jobs.find((job) => job.key === FLAKY)!;

    // Let the round robin reach every replica, then kill one right after it answered.
    await waitFor(() => proxy.ports.every((port) => (proxy.served.get(port) ?? 0) > 0), 40_000);
    await sleep(15_000);
    const secondPort = proxy.ports[1];
    const servedBySecond = proxy.served.get(secondPort) ?? 0;
    await waitFor(() => (proxy.served.get(secondPort) ?? 0) > servedBySecond, 20_000, 20);
    await second.kill('SIGKILL');
    await sleep(20_000);

    // The flaky method: a run that failed twice (500, retried by the job's policy), then succeeded.
    const flakySucceeded = (await runsOf(flaky.id)).filter((run) => run.status === 'succeeded');
    expect(flakySucceeded.length).toBeGreaterThanOrEqual(1);
    const detail = await api('GET', `/api/v1/runs/${flakySucceeded[0].id}`);
    expect(
      detail.body.attempts.map((a: { outcome: string; status_code: number }) => [a.outcome, a.status_code]),
    ).toEqual([
      ['retryable', 500],
      ['retryable', 500],
      ['success', 200],
    ]);
    expect(detail.body.attempts[0].response_body).toContain('ReportsService.flaky: flaky failure on attempt 0');
    const flakyCalls = (await calls(FLAKY)).filter((call) => call.run_id === flakySucceeded[0].id);
    expect(flakyCalls.map((call) => [call.attempt, call.outcome])).toEqual([
      [0, 'failed'],
      [1, 'failed'],
      [2, 'handled'],
    ]);

    // The next release (flaky removed) boots: its apply prunes the flaky job.
    await startReplica('d', 'next');
    await waitFor(async () => (await api('GET', `/api/v1/jobs/${flaky.id}`)).status === 404, 30_000);
    expect((await managedJobs()).map((job) => job.key)).toEqual([HEARTBEAT]);
    await sleep(10_000);

    // Stop the occurrences, let the last one settle, then compare the service's runs with the calls.
    expect((await api('POST', `/api/v1/jobs/${heartbeat.id}/pause`)).status).toBe(200);
    const runs = await waitFor(async () => {
      const all = await runsOf(heartbeat.id);
      return all.some((run) => run.status === 'running') ? null : all;
    }, 30_000);
    const succeeded = runs.filter((run) => run.status === 'succeeded');
    expect(succeeded.length).toBeGreaterThanOrEqual(10);
    expect(runs.filter((run) => run.status === 'failed')).toEqual([]);

    const handled = (await calls(HEARTBEAT)).filter((call) => call.outcome === 'handled');
    const perRun = new Map<string, number>();
    for (const call of handled) {
      perRun.set(call.run_id, (perRun.get(call.run_id) ?? 0) + 1);
    }
    // Exactly once: every succeeded run handled once, nothing handled twice or without a run.
    expect([...perRun.values()].filter((n) => n !== 1)).toEqual([]);
    expect([...perRun.keys()].sort()).toEqual(succeeded.map((run) => run.id).sort());
    expect(new Set(handled.map((call) => call.replica)).size).toBeGreaterThanOrEqual(3);
    expect(handled.some((call) => call.replica === 'b')).toBe(true);
  }, 170_000);
  it("should fail an app's bootstrap with the service's own validation message naming the method, writing nothing", async () => {
    @Module({
      imports: [
        ScheduledJobsModule.forRoot({
          baseUrl: stack.baseUrl,
          apiKey: stack.apiKey,
          owner: 'app:billing',
          receiver: { path: '/scheduled-jobs', publicUrl: `${proxy.url}/scheduled-jobs` },
        }),
      ],
      providers: [BillingService],
    })
    class BillingModule {}
    const app = await NestFactory.create(BillingModule, new FastifyAdapter(), { logger: false });
    await expect(app.init()).rejects.toThrow(/^BillingService\.closeDay: unknown word "mondy"/);
    await app.close();
    const res = await api('GET', '/api/v1/jobs?limit=100');
    expect((res.body.data as JobRow[]).filter((job) => job.managed_by === 'app:billing')).toEqual([]);
  });
});
