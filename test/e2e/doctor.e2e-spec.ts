import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckResult } from '../../apps/cli/src/commands/doctor';
import { run as runCli } from '../../apps/cli/src/main';
import { freePort } from '../utils/processes';
import { waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack, TEST_SECRETS_ENCRYPTION_KEY, temporalAddress } from '../utils/stack';
import { startTlsFront, type TlsFront } from '../utils/tls-front';

/**
 * `svc doctor` (issue 48): against a healthy stack every check passes (exit 0); against each
 * broken dependency — an untrusted CA, an unknown namespace, a namespace without the search
 * attributes, PostgreSQL down, no worker polling — exactly that check fails, naming its cause and
 * a fix, and the command exits 1.
 */
jest.setTimeout(120_000);

interface DoctorRun {
  code: number;
  text: string;
  checks: Record<string, CheckResult>;
}

describe('svc doctor', () => {
  let stack: Stack;
  let front: TlsFront;
  const cwd = mkdtempSync(join(tmpdir(), 'svc-doctor-'));

  beforeAll(async () => {
    [stack, front] = await Promise.all([startStack(), startTlsFront(temporalAddress())]);
    // Ready once the in-process worker's first poll reaches Temporal.
    await waitFor(async () => (await apiClient(stack.baseUrl)('GET', '/readyz')).status === 200, 60_000);
  });

  afterAll(async () => {
    await stack?.stop();
    await front?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** The stack's own settings, as an operator's environment would hold them, with `change` applied. */
  function deploymentEnv(change: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      DATABASE_URL: stack.config.database.url,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: stack.config.temporal.task_queue,
      SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
      SVC_API_URL: `${stack.baseUrl}/api/v1`,
      METRICS_WORKER_PORT: '0',
      METRICS_TEMPORAL_SDK_PORT: '0',
      ...change,
    };
  }

  /** Runs `svc doctor` as text and as JSON; the two must agree. */
  async function doctor(change: Record<string, string> = {}): Promise<DoctorRun> {
    const env = deploymentEnv(change);
    let text = '';
    const code = await runCli(['doctor'], { out: (t) => (text += t), err: (t) => (text += t), env, cwd });
    let json = '';
    const jsonCode = await runCli(['doctor', '--json'], { out: (t) => (json += t), err: (t) => (json += t), env, cwd });
    const parsed = JSON.parse(json) as { ok: boolean; checks: CheckResult[] };
    expect(jsonCode).toBe(code);
    expect(parsed.ok).toBe(code === 0);
    return { code, text, checks: Object.fromEntries(parsed.checks.map((c) => [c.check, c])) };
  }

  /** Exactly `check` fails (others may be skipped for needing it), naming `cause`, with a fix. */
  function expectOnlyFailure(result: DoctorRun, check: string, cause: RegExp): void {
    expect(result.code).toBe(1);
    const failed = Object.values(result.checks).filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.check)).toEqual([check]);
    expect(result.checks[check].message).toMatch(cause);
    expect(result.checks[check].fix).toEqual(expect.any(String));
    const line = result.text.split('\n').find((l) => l.startsWith('[FAIL]'));
    expect(line).toContain(result.checks[check].message);
    expect(line).toContain(`— fix: ${result.checks[check].fix}`);
    expect(result.text).toMatch(/1 of \d+ checks failed\n$/);
  }

  it('should pass every check against a healthy stack, one line each, and exit 0', async () => {
    const result = await doctor();
    expect(result.code).toBe(0);
    expect(Object.fromEntries(Object.values(result.checks).map((c) => [c.check, c.status]))).toEqual({
      temporal: 'ok',
      namespace: 'ok',
      'search attributes': 'ok',
      'payload codec': 'skip',
      'worker polling': 'ok',
      postgres: 'ok',
      clocks: 'ok',
      retention: 'ok',
      readyz: 'ok',
      'metrics: API': 'ok',
      'metrics: worker': 'skip',
      'metrics: Temporal SDK': 'skip',
    });
    expect(result.checks.postgres.message).toMatch(/answers; schema current \(\d+ migrations\)/);
    expect(result.checks.clocks.message).toMatch(/^against Temporal's clock: this machine .*, PostgreSQL /);
    const lines = result.text.trim().split('\n');
    expect(lines).toHaveLength(13);
    expect(lines.at(-1)).toBe('all 9 checks pass');
  });

  it('should name an untrusted server certificate (a wrong CA) and skip what needs Temporal', async () => {
    const result = await doctor({
      TEMPORAL_ADDRESS: front.mtlsAddress,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: front.pki.otherCa.cert,
      TEMPORAL_TLS_CLIENT_CERT_PATH: front.pki.client.cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: front.pki.client.key,
    });
    expectOnlyFailure(result, 'temporal', /the server's certificate is not trusted/);
    expect(result.checks.namespace).toMatchObject({ status: 'skip', message: 'needs Temporal' });
    expect(result.checks.clocks.status).toBe('skip');
  });

  it('should name an unknown namespace', async () => {
    const result = await doctor({ TEMPORAL_NAMESPACE: 'no-such-doctor-namespace' });
    expectOnlyFailure(result, 'namespace', /namespace no-such-doctor-namespace does not exist/);
    expect(result.checks.namespace.fix).toContain('temporal operator namespace create -n no-such-doctor-namespace');
  });

  it('should name the search attributes a namespace lacks, and how to register them', async () => {
    const namespace = `svc-doctor-bare-${process.pid}`;
    const connection = await Connection.connect({ address: temporalAddress() });
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('1 day'),
      });
      // Served once the frontend's namespace cache has it (about 10 s at most).
      await waitFor(async () => {
        try {
          return await connection.operatorService.listSearchAttributes({ namespace });
        } catch {
          return null;
        }
      }, 30_000);
    } finally {
      await connection.close();
    }
    // No worker polls in that namespace either: only the attributes are asked about here.
    const result = await doctor({ TEMPORAL_NAMESPACE: namespace });
    expect(result.checks['search attributes']).toMatchObject({
      status: 'fail',
      message: `namespace ${namespace}: not registered: SvcJobId, SvcJobKey, SvcRunId, SvcTrigger, SvcWorkspaceId (run workflows that carry them cannot start)`,
      fix: expect.stringContaining(
        `temporal operator search-attribute create --namespace ${namespace} --name SvcJobId --type Keyword`,
      ),
    });
    expect(result.checks['worker polling'].status).toBe('fail');
    expect(result.code).toBe(1);
  });

  it('should name PostgreSQL down and skip what needs it', async () => {
    const port = await freePort();
    const result = await doctor({ DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${port}/svc` });
    expectOnlyFailure(
      result,
      'postgres',
      new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port}/svc is unreachable: .*ECONNREFUSED`),
    );
    expect(result.checks.retention).toMatchObject({ status: 'skip', message: 'needs PostgreSQL' });
  });

  it('should name the task queues no worker polls', async () => {
    // A deployment whose worker is not running: nothing has polled its task queue (a worker
    // stopped now would count as polling until its last poll is 90 s old).
    const queue = `svc-doctor-unpolled-${process.pid}`;
    const result = await doctor({ TEMPORAL_TASK_QUEUE: queue });
    expectOnlyFailure(
      result,
      'worker polling',
      new RegExp(`^no worker polled ${queue}, ${queue}-runs, ${queue}-alerts in the last 90 s`),
    );
    expect(result.checks['worker polling'].fix).toContain(`TEMPORAL_TASK_QUEUE=${queue}`);
  });
});
