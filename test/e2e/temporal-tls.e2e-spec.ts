import { buildConfig } from '@svc/common';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { run as runCli } from '../../apps/cli/src/main';
import { createTestDatabase } from '../utils/database';
import { freePort, startApi } from '../utils/processes';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, startStack, type Stack, TEST_SECRETS_ENCRYPTION_KEY, temporalAddress } from '../utils/stack';
import { startTlsFront, type TlsFront } from '../utils/tls-front';

/**
 * Issue 20: the service against a secured Temporal frontend, for real — the dev server behind an
 * nginx TLS front (test/utils/tls-front.ts) that demands a client certificate (mTLS) on one port
 * and an API key on another. The whole stack (API + worker) fires a job and mirrors its run over
 * each; a wrong client certificate, an untrusted server, a bad API key (and an expired
 * certificate, an unknown namespace) each fail fast with one line naming the cause in `/readyz`,
 * in the worker's start-up output and in `svc temporal check`, with no key material anywhere; and
 * the stack recovers by itself once a stopped front is back.
 */
describe('Temporal behind a TLS front', () => {
  let front: TlsFront;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    front = await startTlsFront(temporalAddress());
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await front?.close();
    await receiver?.stop();
  });

  const mtlsEnv = (client = front.pki.client): Record<string, string> => ({
    TEMPORAL_ADDRESS: front.mtlsAddress,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: front.pki.ca.cert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: client.key,
  });

  /** Creates a job every 2 s and waits until a run of it is mirrored as succeeded. */
  async function firesAndMirrors(stack: Stack, name: string): Promise<string> {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const created = await api('POST', '/api/v1/jobs', {
      name,
      schedule: { expr: 'every 2 seconds' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/${name}` } },
    });
    expect(created.status).toBe(201);
    const jobId: string = created.body.id;
    const succeeded = await waitFor(async () => {
      const runs = (await api('GET', `/api/v1/runs?job_id=${jobId}`)).body.data as Array<{ status: string }>;
      return runs.find((run) => run.status === 'succeeded');
    }, 60_000);
    expect(succeeded).toMatchObject({ job_id: jobId, status: 'succeeded' });
    expect(receiver.forJob(jobId).length).toBeGreaterThanOrEqual(1);
    return jobId;
  }

  async function readyz(stack: Stack) {
    return apiClient(stack.baseUrl)('GET', '/readyz');
  }

  describe('over mTLS (environment variables)', () => {
    let stack: Stack;

    beforeAll(async () => {
      stack = await startStack({ env: mtlsEnv() });
    });

    afterAll(async () => {
      await stack?.stop();
    });

    it('should fire a job and mirror its run, and be ready', async () => {
      expect(stack.config.temporal.connection.tls?.client_cert).not.toBeNull();
      const jobId = await firesAndMirrors(stack, 'over-mtls');
      const ready = await waitFor(async () => {
        const response = await readyz(stack);
        return response.status === 200 ? response : null;
      }, 30_000);
      expect(ready.body).toMatchObject({ status: 'ready', temporal: true, temporal_error: null });
      await apiClient(stack.baseUrl, stack.apiKey)('POST', `/api/v1/jobs/${jobId}/pause`);
    });

    it('should recover by itself when the front is stopped and started again', async () => {
      const api = apiClient(stack.baseUrl, stack.apiKey);
      const job = (
        await api('POST', '/api/v1/jobs', {
          name: 'across-outage',
          schedule: { expr: 'every 1 hour' },
          sink: { kind: 'webhook', config: { url: `${receiver.url}/across-outage` } },
        })
      ).body;
      await front.stop();
      const refused = `Temporal at ${front.mtlsAddress}: cannot reach the server (connection refused)`;
      const down = await waitFor(async () => {
        const response = await readyz(stack);
        return response.body.temporal_error === refused ? response : null;
      }, 30_000);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'unavailable', temporal: false, queue: false });

      await front.start();
      await waitFor(async () => (await readyz(stack)).status === 200, 90_000);
      const triggered = await waitFor(async () => {
        const response = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
        return response.status === 202 ? response : null;
      }, 30_000);
      const done = await waitFor(async () => {
        const runResponse = (await api('GET', `/api/v1/runs/${triggered.body.run_id}`)).body;
        return runResponse.status === 'succeeded' ? runResponse : null;
      }, 60_000);
      expect(done.trigger).toBe('manual');
      await api('DELETE', `/api/v1/jobs/${job.id}`);
    });

    it('should keep a worker started while the front is down retrying until it is back', async () => {
      await front.stop();
      const spawning = stack.spawnWorker();
      try {
        await waitFor(
          () =>
            stack
              .spawnedWorkerOutput()
              .includes(`Temporal at ${front.mtlsAddress}: cannot reach the server (connection refused); retrying in`),
          30_000,
        );
      } finally {
        await front.start();
      }
      const worker = await spawning;
      expect(worker.exitCode).toBeNull();
      expect(stack.spawnedWorkerOutput()).toContain(
        `polling task queues ${stack.config.temporal.task_queue}, ${stack.config.temporal.task_queue}-runs, ${stack.config.temporal.task_queue}-alerts on ${front.mtlsAddress} (namespace default, mTLS)`,
      );
    });
  });

  describe('with a profile of the Temporal config file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE)', () => {
    it('should connect as the temporal CLI would (svc temporal check)', async () => {
      const file = join(front.pki.dir, 'temporal.toml');
      writeFileSync(
        file,
        [
          '[profile.secure]',
          `address = "${front.mtlsAddress}"`,
          'namespace = "default"',
          '[profile.secure.tls]',
          `client_cert_path = "${front.pki.client.cert}"`,
          `client_key_path = "${front.pki.client.key}"`,
          `server_ca_cert_path = "${front.pki.ca.cert}"`,
          'server_name = "localhost"',
        ].join('\n'),
      );
      let out = '';
      const code = await runCli(['temporal', 'check'], {
        out: (text) => (out += text),
        err: (text) => (out += text),
        env: { PATH: process.env.PATH, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'secure' },
      });
      expect({ code, out }).toEqual({
        code: 0,
        out: `Temporal at ${front.mtlsAddress} (namespace default, mTLS, profile secure): connected, namespace default answers\n`,
      });
    });
  });

  describe('over TLS with an API key (the temporal: section of the config file)', () => {
    let stack: Stack;

    beforeAll(async () => {
      stack = await startStack({
        env: { TEMPORAL_ADDRESS: front.apiKeyAddress },
        config: {
          temporal: {
            api_key: front.apiKey,
            tls: { server_ca_cert_path: front.pki.ca.cert, server_name: 'localhost' },
          },
        },
      });
    });

    afterAll(async () => {
      await stack?.stop();
    });

    it('should fire a job and mirror its run', async () => {
      expect(stack.config.temporal.connection.api_key).toBe(front.apiKey);
      const jobId = await firesAndMirrors(stack, 'over-api-key');
      await apiClient(stack.baseUrl, stack.apiKey)('POST', `/api/v1/jobs/${jobId}/pause`);
    });
  });

  describe('a connection the server refuses fails fast with one line naming the cause', () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;

    beforeAll(async () => {
      db = await createTestDatabase();
    });

    afterAll(async () => {
      await db?.drop();
    });

    const badKey = 'not-the-key-0123456789';
    const cases: Array<[string, () => Record<string, string>, () => string]> = [
      [
        'a client certificate from another CA',
        () => mtlsEnv(front.pki.wrongClient),
        () =>
          `Temporal at ${front.mtlsAddress}: the server rejected the client certificate (not signed by a CA it trusts, revoked or wrong); check TEMPORAL_TLS_CLIENT_CERT_PATH (temporal.tls.client_cert_path)`,
      ],
      [
        'an expired client certificate',
        () => mtlsEnv(front.pki.expiredClient),
        () =>
          `Temporal at ${front.mtlsAddress}: the server rejected the client certificate: it has expired (${expiredAt()}); renew TEMPORAL_TLS_CLIENT_CERT_PATH (temporal.tls.client_cert_path)`,
      ],
      [
        'a server whose certificate no trusted CA signed',
        () => ({
          TEMPORAL_ADDRESS: front.untrustedAddress,
          TEMPORAL_TLS_SERVER_NAME: 'localhost',
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: front.pki.ca.cert,
        }),
        () =>
          `Temporal at ${front.untrustedAddress}: the server's certificate is not trusted (unknown issuer); set the CA that signed it: TEMPORAL_TLS_SERVER_CA_CERT_PATH (temporal.tls.server_ca_cert_path)`,
      ],
      [
        'a bad API key',
        () => ({
          TEMPORAL_ADDRESS: front.apiKeyAddress,
          TEMPORAL_TLS_SERVER_NAME: 'localhost',
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: front.pki.ca.cert,
          TEMPORAL_API_KEY: badKey,
        }),
        () =>
          `Temporal at ${front.apiKeyAddress}: the server rejected the API key (Unauthenticated: Request unauthorized.); check TEMPORAL_API_KEY (temporal.api_key)`,
      ],
      [
        'an unknown namespace',
        () => ({ ...mtlsEnv(), TEMPORAL_NAMESPACE: 'no-such-namespace' }),
        () =>
          `Temporal at ${front.mtlsAddress}: namespace no-such-namespace does not exist on this server (NotFound); check TEMPORAL_NAMESPACE (temporal.namespace)`,
      ],
    ];

    function expiredAt(): string {
      return buildConfig({}, mtlsEnv(front.pki.expiredClient)).temporal.connection.tls!.client_cert_expires_at!;
    }

    /** The JSON log lines of a process's output. */
    function logEntries(output: string): Array<{ level: string; msg: string }> {
      return output
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as { level: string; msg: string });
    }

    /** Nothing secret in an output: no PEM, no piece of a certificate or key, not the API key. */
    function expectNoKeyMaterial(output: string): void {
      expect(output).not.toMatch(/-----BEGIN|PRIVATE KEY/);
      for (const file of [front.pki.client.key, front.pki.wrongClient.key, front.pki.client.cert]) {
        const body = readFileSync(file, 'utf8').split('\n')[1];
        expect(output).not.toContain(body.slice(0, 32));
      }
      expect(output).not.toContain(badKey);
      expect(output).not.toContain(front.apiKey);
    }

    describe.each(cases)('%s', (_, env, line) => {
      it('should say so in svc temporal check (exit 1)', async () => {
        let out = '';
        let err = '';
        const code = await runCli(['temporal', 'check'], {
          out: (text) => (out += text),
          err: (text) => (err += text),
          env: { PATH: process.env.PATH, ...env() },
        });
        expect({ code, out, err }).toEqual({ code: 1, out: '', err: `error: ${line()}\n` });
        expectNoKeyMaterial(err);
      });

      it('should say so at API start-up (error log line) and in /readyz (503, temporal_error)', async () => {
        const port = await freePort();
        const api = await startApi(
          { databaseUrl: db.url, temporalAddress: temporalAddress(), taskQueue: 'svc-tls-failures', extra: env() },
          port,
        );
        try {
          const logged = await waitFor(
            () => logEntries(api.output).find((entry) => entry.level === 'error' && entry.msg === line()),
            30_000,
          );
          expect(logged.msg).toBe(line());
          const response = await apiClient(`http://127.0.0.1:${port}`)('GET', '/readyz');
          expect(response.status).toBe(503);
          expect(response.body).toMatchObject({ temporal: false, queue: false, temporal_error: line() });
          expectNoKeyMaterial(JSON.stringify(response.body));
          expectNoKeyMaterial(api.output);
        } finally {
          await api.kill('SIGTERM');
        }
      });

      it('should stop the worker at start-up with that line (exit 1)', async () => {
        const worker = spawn(process.execPath, [resolve(__dirname, '../../dist/apps/worker/src/main.js')], {
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: db.url,
            SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
            METRICS_WORKER_PORT: '0',
            METRICS_TEMPORAL_SDK_PORT: '0',
            ...env(),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exit = await Promise.race([
          new Promise<number | null>((done) => worker.once('exit', (code) => done(code))),
          new Promise<'running'>((done) => setTimeout(() => done('running'), 60_000).unref()),
        ]);
        if (exit === 'running') {
          worker.kill('SIGKILL');
        }
        expect(exit).toBe(1);
        const fatal = logEntries(output).find((entry) => entry.level === 'fatal');
        expect(fatal?.msg).toBe(line());
        expect(output).not.toContain('polling task queue');
        expectNoKeyMaterial(output);
      });
    });
  });
});
