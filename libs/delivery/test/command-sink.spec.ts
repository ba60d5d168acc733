import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, validateCommandConfig } from '@svc/delivery';

const node = process.execPath;
const script = (code: string, extra: Partial<Parameters<typeof runCommand>[0]['config']> = {}) => ({
  argv: [node, '-e', code],
  ...extra,
});

describe('command sink (decisions: command sink)', () => {
  it('should succeed on exit 0 and capture stdout and stderr', async () => {
    const r = await runCommand({
      config: script('process.stdout.write("out;"); process.stderr.write("err;")'),
      timeoutMs: 5000,
    });
    expect(r).toMatchObject({ outcome: 'success', exitCode: 0, signal: null, outputTruncated: false });
    expect(r.output).toContain('out;');
    expect(r.output).toContain('err;');
    expect(r.error).toBeUndefined();
    expect(r.requestSummary).toBe(`exec ${node} (+2 args)`);
  });

  it('should be retryable for a code in retry_on_exit_codes and fatal otherwise', async () => {
    const retry = await runCommand({
      config: script('process.exit(75)', { retry_on_exit_codes: [75] }),
      timeoutMs: 5000,
    });
    expect(retry).toMatchObject({ outcome: 'retryable', exitCode: 75, errorKind: 'exit_code', error: 'exit code 75' });
    const fatal = await runCommand({
      config: script('process.exit(1)', { retry_on_exit_codes: [75] }),
      timeoutMs: 5000,
    });
    expect(fatal).toMatchObject({ outcome: 'fatal', exitCode: 1 });
  });

  it('should kill the process on timeout and call it retryable', async () => {
    const r = await runCommand({ config: script('setInterval(() => {}, 1000)'), timeoutMs: 300 });
    expect(r).toMatchObject({ outcome: 'retryable', errorKind: 'timeout', signal: 'SIGKILL' });
    expect(r.durationMs).toBeGreaterThanOrEqual(250);
  });

  it('should cap output at 64 KiB', async () => {
    const r = await runCommand({ config: script('process.stdout.write("x".repeat(70 * 1024))'), timeoutMs: 5000 });
    expect(r).toMatchObject({ outcome: 'success', outputTruncated: true });
    expect(r.output).toHaveLength(64 * 1024);
  });

  it('should not use a shell and not inherit the server environment', async () => {
    process.env.SVC_TEST_SECRET = 'leak';
    try {
      const r = await runCommand({
        config: {
          argv: [
            node,
            '-e',
            'console.log(JSON.stringify([process.argv[1], process.env.SVC_TEST_SECRET ?? null, process.env.FOO]))',
            '$(echo hi); `id`',
          ],
          env: { FOO: 'bar' },
        },
        timeoutMs: 5000,
      });
      expect(JSON.parse(r.output)).toEqual(['$(echo hi); `id`', null, 'bar']);
    } finally {
      delete process.env.SVC_TEST_SECRET;
    }
  });

  it('should run in cwd', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-cmd-')));
    const r = await runCommand({ config: script('console.log(process.cwd())', { cwd: dir }), timeoutMs: 5000 });
    expect(r.output.trim()).toBe(dir);
  });

  it('should be fatal when the program does not exist', async () => {
    const r = await runCommand({ config: { argv: ['/nonexistent/definitely-not-here'] }, timeoutMs: 5000 });
    expect(r).toMatchObject({ outcome: 'fatal', errorKind: 'spawn_failed' });
    expect(r.error).toMatch(/ENOENT/);
  });

  it('should be fatal when killed by a signal', async () => {
    const r = await runCommand({ config: script('process.kill(process.pid, "SIGTERM")'), timeoutMs: 5000 });
    expect(r).toMatchObject({ outcome: 'fatal', errorKind: 'signal', signal: 'SIGTERM' });
  });

  describe('validateCommandConfig', () => {
    it('should accept a valid config', () => {
      expect(
        validateCommandConfig({ argv: ['/bin/true'], env: { A: '1' }, cwd: '/tmp', retry_on_exit_codes: [75] }),
      ).toEqual({});
    });

    it('should name each bad field', () => {
      expect(validateCommandConfig({ argv: [], env: { '1X': 'v' }, cwd: 'rel', retry_on_exit_codes: [0] })).toEqual({
        'sink.config.argv': expect.any(String),
        'sink.config.env.1X': expect.any(String),
        'sink.config.cwd': expect.any(String),
        'sink.config.retry_on_exit_codes': expect.any(String),
      });
    });
  });
});
