import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { exportJobs } from '../../apps/cli/src/commands/jobs-as-code';
import { run } from '../../apps/cli/src/main';
import { apiClient, startStack, type Stack } from '../utils/stack';

/** A loopback port nothing listens on (fetch refuses "bad ports" such as 9 before connecting). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

interface Captured {
  code: number;
  out: string;
  err: string;
}

const OWNER = 'git:infra/jobs.yaml';

/**
 * Jobs as code from the command line (issue 42, docs/jobs-as-code.md): `svc apply`, `svc diff` and
 * `svc export` against the assembled API over HTTP (real PostgreSQL and Temporal), as a CI job or
 * an operator runs them: the plan printed as a diff, the exit codes, pruning of the owner's own
 * jobs only, the export → apply round trip, and a bad file refused whole with the API's `fields`.
 */
describe('svc apply / diff / export (jobs as code)', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  let dir: string;
  let apiUrl: string;

  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack.baseUrl, stack.apiKey);
    apiUrl = `${stack.baseUrl}/api/v1`;
    dir = mkdtempSync(join(tmpdir(), 'svc-jobs-cli-'));
  });

  afterAll(async () => {
    await stack?.stop();
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** `svc …` in process, talking to the stack through SVC_API_URL and SVC_API_KEY. */
  async function svc(argv: string[], env: NodeJS.ProcessEnv = {}, cwd = dir): Promise<Captured> {
    let out = '';
    let err = '';
    const code = await run(argv, {
      out: (t) => (out += t),
      err: (t) => (err += t),
      env: { SVC_API_URL: apiUrl, SVC_API_KEY: stack.apiKey, ...env },
      cwd,
    });
    return { code, out, err };
  }

  function job(key: string, overrides: Record<string, unknown> = {}) {
    return {
      key,
      name: `job ${key}`,
      schedule: { expr: 'every day at 3am', timezone: 'Europe/Berlin' },
      sink: { kind: 'webhook', config: { url: `http://127.0.0.1:9/${key}` } },
      ...overrides,
    };
  }

  function writeFile(name: string, content: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, name.endsWith('.json') ? JSON.stringify(content) : stringify(content));
    return path;
  }

  async function listed(query: string): Promise<Array<Record<string, any>>> {
    const res = await api('GET', `/api/v1/jobs?limit=200&${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  const owned = async () =>
    (await listed(`managed_by=${encodeURIComponent(OWNER)}`)).sort((a, b) => (a.key < b.key ? -1 : 1));
  const countJobs = async () => Number((await stack.dataSource.query('SELECT count(*) AS n FROM jobs'))[0].n);

  const initial = { managed_by: OWNER, jobs: [job('alpha'), job('bravo', { tags: ['billing'] }), job('charlie')] };

  describe('svc apply', () => {
    it('should create every job of the file under its owner and print each as + key', async () => {
      const file = writeFile('jobs.yaml', initial);
      const res = await svc(['apply', '-f', file]);
      expect(res).toEqual({
        code: 0,
        err: '',
        out: `+ alpha\n+ bravo\n+ charlie\napplied (managed by ${OWNER}): 3 created, 0 updated, 0 deleted, 0 unchanged\n`,
      });
      const jobs = await owned();
      expect(jobs.map((j) => [j.key, j.managed_by, j.name, j.version])).toEqual([
        ['alpha', OWNER, 'job alpha', 1],
        ['bravo', OWNER, 'job bravo', 1],
        ['charlie', OWNER, 'job charlie', 1],
      ]);
    });

    it('should change nothing on a second apply of the same file and say = 3 unchanged', async () => {
      const before = await owned();
      const res = await svc(['apply', '-f', join(dir, 'jobs.yaml')]);
      expect(res).toEqual({
        code: 0,
        err: '',
        out: `= 3 unchanged\napplied (managed by ${OWNER}): 0 created, 0 updated, 0 deleted, 3 unchanged\n`,
      });
      expect(await owned()).toEqual(before);
    });

    it('should print the plan as JSON with --output json', async () => {
      const res = await svc(['apply', '-f', join(dir, 'jobs.yaml'), '--output', 'json']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.out)).toMatchObject({
        created: [],
        updated: [],
        unchanged: ['alpha', 'bravo', 'charlie'],
        deleted: [],
      });
    });
  });

  describe('svc diff', () => {
    it('should exit 0 and print the unchanged count when the workspace matches the file', async () => {
      const res = await svc(['diff', '-f', join(dir, 'jobs.yaml')]);
      expect(res).toEqual({
        code: 0,
        err: '',
        out: `= 3 unchanged\ndry run (managed by ${OWNER}): 0 to create, 0 to update, 0 to delete, 3 unchanged; nothing written\n`,
      });
    });

    it('should exit 2 on changes, print them with their field paths, and write nothing', async () => {
      const changed = {
        managed_by: OWNER,
        jobs: [
          job('alpha'),
          job('bravo', { tags: ['billing'], schedule: { expr: 'every day at 4am', timezone: 'Europe/Berlin' } }),
          job('charlie', { retry: { max_attempts: 5 } }),
          job('delta'),
        ],
      };
      const before = await owned();
      const jobsBefore = await countJobs();
      const res = await svc(['diff', '-f', writeFile('changed.yaml', changed)]);
      expect(res.code).toBe(2);
      expect(res.err).toBe('');
      expect(res.out.split('\n')).toEqual([
        '+ delta',
        '~ bravo: schedule.expr',
        '~ charlie: retry.max_attempts',
        '= 1 unchanged',
        `dry run (managed by ${OWNER}): 1 to create, 2 to update, 0 to delete, 1 unchanged; nothing written`,
        '',
      ]);
      expect(await owned()).toEqual(before);
      expect(await countJobs()).toBe(jobsBefore);

      const json = await svc(['diff', '-f', join(dir, 'changed.yaml'), '--output', 'json']);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.out)).toMatchObject({
        created: ['delta'],
        updated: [
          { key: 'bravo', changes: ['schedule.expr'] },
          { key: 'charlie', changes: ['retry.max_attempts'] },
        ],
      });
    });

    it('should exit 2 from the process itself, as a CI step sees it', async () => {
      const main = resolve(__dirname, '../../apps/cli/src/main.ts');
      const child = promisify(execFile)(
        process.execPath,
        ['-r', '@swc-node/register', main, 'diff', '-f', join(dir, 'changed.yaml')],
        {
          env: { ...process.env, SVC_API_URL: apiUrl, SVC_API_KEY: stack.apiKey },
          cwd: resolve(__dirname, '../..'),
        },
      );
      await expect(child).rejects.toMatchObject({ code: 2, stdout: expect.stringContaining('+ delta\n'), stderr: '' });
    }, 60_000);
  });

  describe('svc apply --prune', () => {
    it('should delete only the jobs of its own owner that the file no longer names', async () => {
      const byHand = await api('POST', '/api/v1/jobs', {
        name: 'made by hand',
        schedule: { expr: 'every day at 5am' },
        sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/hand' } },
      });
      expect(byHand.status).toBe(201);
      const other = writeFile('other.yaml', { managed_by: 'app:billing', jobs: [job('zulu')] });
      expect((await svc(['apply', '-f', other])).code).toBe(0);

      // charlie leaves the file; without --prune it stays
      const smaller = writeFile('smaller.yaml', {
        managed_by: OWNER,
        jobs: [job('alpha'), job('bravo', { tags: ['billing'] })],
      });
      expect((await svc(['apply', '-f', smaller])).code).toBe(0);
      expect((await owned()).map((j) => j.key)).toEqual(['alpha', 'bravo', 'charlie']);

      const pruned = await svc(['apply', '-f', smaller, '--prune']);
      expect(pruned).toEqual({
        code: 0,
        err: '',
        out: `- charlie\n= 2 unchanged\napplied (managed by ${OWNER}): 0 created, 0 updated, 1 deleted, 2 unchanged\n`,
      });
      expect((await owned()).map((j) => j.key)).toEqual(['alpha', 'bravo']);
      expect((await api('GET', `/api/v1/jobs/${byHand.body.id}`)).status).toBe(200);
      expect((await listed('managed_by=app%3Abilling')).map((j) => j.key)).toEqual(['zulu']);
    });

    it('should take the owner from --managed-by over the file', async () => {
      const unowned = writeFile('unowned.yaml', { jobs: [job('alpha'), job('bravo', { tags: ['billing'] })] });
      expect(await svc(['diff', '-f', unowned, '--managed-by', OWNER, '--prune'])).toEqual({
        code: 0,
        err: '',
        out: `= 2 unchanged\ndry run (managed by ${OWNER}): 0 to create, 0 to update, 0 to delete, 2 unchanged; nothing written\n`,
      });
    });

    it('should refuse another owner’s key as a conflict, and take it over with --adopt', async () => {
      const other = join(dir, 'other.yaml');
      const refused = await svc(['diff', '-f', other, '--managed-by', OWNER]);
      expect(refused.code).toBe(1);
      expect(refused.out).toBe('');
      expect(refused.err).toMatch(/^error: conflict \(HTTP 409\): .*zulu/);

      const adopted = await svc(['diff', '-f', other, '--managed-by', OWNER, '--adopt', '--prune']);
      expect(adopted.code).toBe(2);
      expect(adopted.out.split('\n').sort()).toEqual(
        [
          '',
          '- alpha',
          '- bravo',
          `dry run (managed by ${OWNER}): 0 to create, 1 to update, 2 to delete, 0 unchanged; nothing written`,
          '~ zulu: managed_by',
        ].sort(),
      );
      // a dry run: zulu still belongs to app:billing
      expect((await listed('key=zulu')).map((j) => j.managed_by)).toEqual(['app:billing']);
    });
  });

  describe('what an operator set by hand', () => {
    it('should leave a paused job paused and say so with ! key kept: paused', async () => {
      const [alpha] = await listed('key=alpha');
      expect((await api('POST', `/api/v1/jobs/${alpha.id}/pause`)).status).toBe(200);
      const [paused] = await listed('key=alpha');
      const res = await svc(['apply', '-f', join(dir, 'smaller.yaml')]);
      expect(res).toEqual({
        code: 0,
        err: '',
        out: `= 2 unchanged\n! alpha kept: paused\napplied (managed by ${OWNER}): 0 created, 0 updated, 0 deleted, 2 unchanged\n`,
      });
      expect((await listed('key=alpha'))[0]).toMatchObject({ state: 'paused', version: paused.version });
      // kept is not a change: diff still exits 0
      expect((await svc(['diff', '-f', join(dir, 'smaller.yaml')])).code).toBe(0);
      expect((await api('POST', `/api/v1/jobs/${alpha.id}/resume`)).status).toBe(200);
    });
  });

  describe('svc export', () => {
    it('should write the owner’s jobs as a file whose apply is unchanged (YAML, with the editor hint)', async () => {
      const out = join(dir, 'exported.yaml');
      const res = await svc(['export', '--managed-by', OWNER, '-o', out]);
      expect(res).toEqual({ code: 0, err: '', out: `wrote 2 job(s) managed by ${OWNER} to ${out}\n` });
      const text = readFileSync(out, 'utf8');
      expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${apiUrl}/schemas/jobs-file.json`);
      expect(text).not.toMatch(/\b(id|version|state|created_at|canonical): /);

      expect(await svc(['diff', '-f', out])).toMatchObject({ code: 0, out: expect.stringMatching(/^= 2 unchanged\n/) });
      const before = await owned();
      expect((await svc(['apply', '-f', out])).out).toMatch(/^= 2 unchanged\n/);
      expect(await owned()).toEqual(before);
    });

    it('should round-trip a job with every setting through JSON, and print YAML without -o', async () => {
      const full: Record<string, any> = job('echo', {
        description: 'all settings',
        tags: ['a', 'b'],
        schedule: { expr: '0 0/15 9-17 ? * MON-FRI', kind: 'quartz', timezone: 'America/New_York', count: 40 },
        sink: {
          kind: 'webhook',
          config: { url: 'http://127.0.0.1:9/echo', method: 'PUT', headers: { 'x-team': 'ops' }, body: '{"a":1}' },
        },
        retry: { max_attempts: 4, backoff: 'linear', initial_interval: '5s' },
        timeout: '45s',
        sla_threshold: '2m',
        misfire_policy: 'skip',
        overlap_policy: 'queue',
        auto_disable_threshold: 0,
      });
      const owner = 'app:echo';
      expect((await svc(['apply', '-f', writeFile('echo.json', { managed_by: owner, jobs: [full] })])).code).toBe(0);
      const out = join(dir, 'echo-exported.json');
      expect((await svc(['export', '--managed-by', owner, '-o', out])).code).toBe(0);
      const exported = JSON.parse(readFileSync(out, 'utf8')) as Record<string, any>;
      expect(Object.keys(exported)).toEqual(['managed_by', 'jobs']);
      expect(exported.jobs[0]).toMatchObject({ ...full, retry: expect.objectContaining(full.retry) });
      expect(await svc(['diff', '-f', out])).toMatchObject({ code: 0, out: expect.stringMatching(/^= 1 unchanged\n/) });

      const printed = await svc(['export', '--managed-by', owner]);
      expect(printed.code).toBe(0);
      expect(printed.out).toMatch(
        /^# yaml-language-server: \$schema=.*\nmanaged_by: app:echo\njobs:\n {2}- key: echo\n/,
      );
    });
    it('should read every page of the owner’s jobs', async () => {
      const settings = { apiUrl, apiKey: stack.apiKey };
      const paged = await exportJobs(settings, OWNER, 1);
      expect(paged.jobs.map((j) => j.key)).toEqual(['alpha', 'bravo']);
      expect(paged).toEqual(await exportJobs(settings, OWNER));
    });
  });

  describe('bad input', () => {
    it('should refuse the whole file when one job fails validation, printing the API’s fields, and write nothing', async () => {
      const jobsBefore = await countJobs();
      const bad = writeFile('bad.yaml', {
        managed_by: OWNER,
        jobs: [job('alpha'), job('new-1'), job('new-2'), job('new-3', { schedule: { expr: 'evry day at 3am' } })],
      });
      const res = await svc(['apply', '-f', bad]);
      expect(res.code).toBe(1);
      expect(res.out).toBe('');
      expect(res.err.split('\n')[0]).toBe(
        'error: validation_failed (HTTP 400): The set was refused; nothing was applied',
      );
      expect(res.err).toContain('\n  jobs[3].schedule.expr: unknown word "evry"; did you mean "every"?\n');
      expect(await countJobs()).toBe(jobsBefore);
      expect(await listed('key=new-1')).toEqual([]);
    });

    it('should name the line of a YAML syntax error, and a file that is not a jobs file', async () => {
      const broken = join(dir, 'broken.yaml');
      writeFileSync(broken, 'jobs:\n  - key: a\n   name: b\n');
      const res = await svc(['apply', '-f', broken]);
      expect(res.code).toBe(1);
      expect(res.err).toMatch(new RegExp(`^error: ${broken.replace(/[.]/g, '\\.')} is not valid YAML: .*line 3`));
      expect(await svc(['apply', '-f', writeFile('list.json', [job('a')])])).toMatchObject({
        code: 1,
        err: `error: ${join(dir, 'list.json')} must be a mapping {managed_by, jobs: [...]}, not a list\n`,
      });
      expect(await svc(['diff', '-f', join(dir, 'missing.yaml')])).toEqual({
        code: 1,
        out: '',
        err: `error: cannot read ${join(dir, 'missing.yaml')}: ENOENT\n`,
      });
    });

    it('should say which API it could not reach, and which key is missing', async () => {
      const closed = await closedPort();
      const unreachable = await svc(['diff', '-f', join(dir, 'jobs.yaml')], {
        SVC_API_URL: `http://127.0.0.1:${closed}/api/v1`,
      });
      expect(unreachable).toEqual({
        code: 1,
        out: '',
        err: `error: cannot reach the API at http://127.0.0.1:${closed}/api/v1: ECONNREFUSED (--api-url or SVC_API_URL)\n`,
      });
      const refused = await svc(['diff', '-f', join(dir, 'jobs.yaml'), '--api-key', 'sjs_wrong']);
      expect(refused).toMatchObject({ code: 1, err: expect.stringMatching(/^error: unauthorized \(HTTP 401\): /) });
      expect(await svc(['diff', '-f', join(dir, 'jobs.yaml')], { SVC_API_KEY: '' })).toEqual({
        code: 1,
        out: '',
        err: `error: no API key: pass --api-key or set SVC_API_KEY (${dir}/.data/api-key, written by npm start, does not exist either)\n`,
      });
    });

    it('should read the key npm start wrote into .data/ of the folder it runs in', async () => {
      const project = mkdtempSync(join(tmpdir(), 'svc-jobs-cli-project-'));
      try {
        mkdirSync(join(project, '.data'));
        writeFileSync(join(project, '.data', 'api-key'), `${stack.apiKey}\n`);
        const res = await svc(
          ['diff', '-f', join(dir, 'smaller.yaml'), '--api-url', apiUrl],
          { SVC_API_KEY: '', SVC_API_URL: '' },
          project,
        );
        expect(res.code).toBe(0);
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    });
  });
});
