import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../../test/utils/processes';
import { waitFor } from '../../../test/utils/receiver';

const ROOT = resolve(__dirname, '../../..');
const LIB = join(ROOT, 'libs/nestjs');
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

/**
 * `npm pack` of libs/nestjs installs into a fresh NestJS 11 app on Express (outside the repo, no
 * path mapping, no repo node_modules) and that app boots, applies its job and handles a signed
 * delivery on its own route. Installs from the npm cache first (`--prefer-offline`); the first run
 * on a machine without NestJS 11 in its cache downloads it.
 */
describe('the packed @svc/nestjs in a fresh NestJS 11 app', () => {
  const dirs: string[] = [];
  let service: Server;
  const applied: unknown[] = [];

  beforeAll(async () => {
    service = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        applied.push(JSON.parse(text));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: ['outside.tick'], updated: [], unchanged: [], deleted: [] }));
      });
    });
    await new Promise<void>((ready) => service.listen(0, '127.0.0.1', ready));
  });

  afterAll(async () => {
    await new Promise((done) => service.close(done));
    for (const dir of dirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  function tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  }

  it('should pack, install offline-first, boot on Express and handle one signed delivery', async () => {
    // Build into a staging copy: the repo's own libs/nestjs stays without a dist/.
    const stage = tempDir('svc-nestjs-stage-');
    const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);
    const build = join(LIB, 'tsconfig.build.json');
    execFileSync(bin('tsc'), ['-p', build, '--outDir', join(stage, 'dist')], { cwd: ROOT, stdio: 'pipe' });
    execFileSync(bin('tsc-alias'), ['-p', build, '--outDir', join(stage, 'dist')], { cwd: ROOT, stdio: 'pipe' });
    cpSync(join(LIB, 'package.json'), join(stage, 'package.json'));
    cpSync(join(LIB, 'README.md'), join(stage, 'README.md'));
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json'], { cwd: stage, encoding: 'utf8' })) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const files = packed[0].files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/nestjs/src/index.js', 'dist/nestjs/src/index.d.ts']));
    expect(files).toEqual(expect.arrayContaining(['dist/api-client/src/index.js', 'dist/api-client/src/schema.d.ts']));
    // Nothing of the service itself: only the package and the generated client.
    expect(files.filter((f) => !/^(dist\/(nestjs|api-client)\/src\/|package\.json$|README\.md$)/.test(f))).toEqual([]);

    const app = tempDir('svc-nestjs-app-');
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'outside-app',
        private: true,
        dependencies: {
          '@nestjs/common': '^11.0.0',
          '@nestjs/core': '^11.0.0',
          '@nestjs/platform-express': '^11.0.0',
          'reflect-metadata': '^0.2.0',
          rxjs: '^7.8.0',
          '@svc/nestjs': `file:${join(stage, packed[0].filename)}`,
        },
      }),
    );
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: app,
      stdio: 'pipe',
      timeout: 240_000,
    });
    expect(readdirSync(join(app, 'node_modules/@svc/nestjs/dist'))).toEqual(['api-client', 'nestjs']);

    // Plain JavaScript, decorators applied by hand: no compiler in the outside app.
    writeFileSync(
      join(app, 'main.js'),
      `require('reflect-metadata');
const { Injectable, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { ScheduledJob, ScheduledJobsModule } = require('@svc/nestjs');

class Ticker {
  tick(context) { console.log('handled ' + context.jobKey + ' ' + context.runId + ' attempt ' + context.attempt); }
}
Injectable()(Ticker);
ScheduledJob({ key: 'outside.tick', schedule: 'every minute' })(Ticker.prototype, 'tick', Object.getOwnPropertyDescriptor(Ticker.prototype, 'tick'));

class AppModule {}
Module({
  imports: [ScheduledJobsModule.forRoot({
    baseUrl: process.env.SVC_BASE_URL, apiKey: 'svc_outside', owner: 'app:outside',
    receiver: { path: '/hooks/jobs', publicUrl: 'http://127.0.0.1:' + process.env.PORT + '/hooks/jobs' },
    signingSecrets: [process.env.SIGNING_SECRET],
  })],
  providers: [Ticker],
})(AppModule);

NestFactory.create(AppModule, { logger: ['error', 'warn'] })
  .then((app) => app.listen(Number(process.env.PORT), '127.0.0.1'))
  .then(() => console.log('outside app listening on ' + require('@nestjs/core/package.json').version));
`,
    );
    const port = await freePort();
    const child = spawn(process.execPath, ['main.js'], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        SVC_BASE_URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
        SIGNING_SECRET: SECRET,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await waitFor(() => output.includes('outside app listening on') || child.exitCode !== null, 60_000);
      expect(output).toMatch(/outside app listening on 11\./);
      expect(applied).toEqual([
        expect.objectContaining({
          managed_by: 'app:outside',
          prune: true,
          jobs: [expect.objectContaining({ key: 'outside.tick', name: 'Ticker.tick', signing_secret: SECRET })],
        }),
      ]);

      const body = JSON.stringify({
        run_id: 'run_outside',
        job_id: 'job_1',
        scheduled_at: '2026-11-28T01:00:00Z',
        attempt: 0,
      });
      const deliver = (secret: string) => {
        const at = new Date();
        return fetch(`http://127.0.0.1:${port}/hooks/jobs`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': 'run_outside',
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(secret).sign('run_outside', at, body),
            'svc-attempt': '0',
            'x-scheduled-job-key': 'outside.tick',
          },
          body,
        });
      };
      expect((await deliver(`whsec_${Buffer.alloc(32, 6).toString('base64')}`)).status).toBe(401);
      const ok = await deliver(SECRET);
      expect([ok.status, await ok.json()]).toEqual([200, { ok: true }]);
      // The child's log line travels through a pipe: it may arrive just after the response.
      await waitFor(() => /handled outside\.tick run_outside attempt 0/.test(output), 10_000);
      expect(output.match(/handled outside\.tick run_outside attempt 0/g)).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
    }
  }, 300_000);
});
