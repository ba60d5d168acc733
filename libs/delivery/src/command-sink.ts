/**
 * The `command` sink (decisions: command sink): runs a program without a shell. Off unless
 * `sinks.command.enabled`; that gate lives in the API/worker config, not here.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { AttemptOutcome } from '@svc/workflow-contract/run-rules';

/** `sink.config` of a command job. */
export interface CommandSinkConfig {
  /** Program and arguments; `argv[0]` is looked up on the child's `PATH` unless it has a `/`. */
  argv: string[];
  /** Extra environment variables (added to `baseEnv`; the server's own env is never inherited). */
  env?: Record<string, string>;
  /** Working directory (absolute). */
  cwd?: string;
  /** Exit codes that mean "try again" (default none). */
  retry_on_exit_codes?: number[];
}

/** Environment a command starts from: a plain PATH only, so server secrets never leak. */
export const DEFAULT_COMMAND_BASE_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
};

export const MAX_COMMAND_OUTPUT_BYTES = 64 * 1024;

export interface RunCommandOptions {
  config: CommandSinkConfig;
  /** Per-attempt timeout; the whole process group is killed (SIGKILL) when it passes. */
  timeoutMs: number;
  /** Default 64 KiB of stdout+stderr, interleaved in arrival order. */
  maxOutputBytes?: number;
  /** Default `DEFAULT_COMMAND_BASE_ENV`. Pass e.g. `{ PATH, HOME }` from validated config. */
  baseEnv?: Readonly<Record<string, string>>;
  /** Monotonic clock in ms; default `performance.now`. */
  clock?: () => number;
}

export type CommandErrorKind = 'timeout' | 'spawn_failed' | 'exit_code' | 'signal';

export interface CommandResult {
  outcome: AttemptOutcome;
  exitCode: number | null;
  /** Signal that ended the process (e.g. `SIGKILL` after a timeout), else null. */
  signal: NodeJS.Signals | null;
  /** stdout+stderr, at most `maxOutputBytes` bytes, as UTF-8 text: the attempt's response_body. */
  output: string;
  outputTruncated: boolean;
  durationMs: number;
  error?: string;
  errorKind?: CommandErrorKind;
  /** `exec <argv[0]> (+N args)`: never the arguments themselves (they may hold secrets). */
  requestSummary: string;
}

/** Create-time checks of a command config, field path → message; empty when valid. */
export function validateCommandConfig(config: unknown, basePath = 'sink.config'): Record<string, string> {
  const errors: Record<string, string> = {};
  const c = (config ?? {}) as Partial<Record<keyof CommandSinkConfig, unknown>>;
  if (!Array.isArray(c.argv) || c.argv.length === 0 || !c.argv.every((a) => typeof a === 'string')) {
    errors[`${basePath}.argv`] = 'argv must be a non-empty array of strings';
  } else if (c.argv[0] === '') {
    errors[`${basePath}.argv`] = 'argv[0] must name a program';
  } else if (c.argv.some((a: string) => a.includes('\0'))) {
    errors[`${basePath}.argv`] = 'arguments must not contain NUL characters';
  }
  if (c.env !== undefined) {
    if (typeof c.env !== 'object' || c.env === null || Array.isArray(c.env)) {
      errors[`${basePath}.env`] = 'env must be an object of strings';
    } else {
      for (const [k, v] of Object.entries(c.env)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== 'string' || v.includes('\0')) {
          errors[`${basePath}.env.${k}`] = 'invalid environment variable';
        }
      }
    }
  }
  if (c.cwd !== undefined && (typeof c.cwd !== 'string' || !c.cwd.startsWith('/'))) {
    errors[`${basePath}.cwd`] = 'cwd must be an absolute path';
  }
  if (
    c.retry_on_exit_codes !== undefined &&
    (!Array.isArray(c.retry_on_exit_codes) ||
      !c.retry_on_exit_codes.every((n) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 255))
  ) {
    errors[`${basePath}.retry_on_exit_codes`] = 'retry_on_exit_codes must be integers from 1 to 255';
  }
  return errors;
}

/**
 * Run the command once. Never throws. Outcome: exit 0 → success; an exit code in
 * `retry_on_exit_codes` → retryable; timeout → retryable (process group killed); any other exit
 * code, a death by signal, or a failure to start (ENOENT, EACCES) → fatal.
 */
export function runCommand(opts: RunCommandOptions): Promise<CommandResult> {
  const clock = opts.clock ?? (() => performance.now());
  const started = clock();
  const maxBytes = opts.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES;
  const { argv, env, cwd } = opts.config;
  const retryCodes = opts.config.retry_on_exit_codes ?? [];
  const requestSummary = `exec ${argv[0] ?? ''} (+${Math.max(0, argv.length - 1)} args)`;

  return new Promise<CommandResult>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let finished = false;
    let timedOut = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;

    const collect = (chunk: Buffer) => {
      const remaining = maxBytes - size;
      if (remaining <= 0) {
        truncated = truncated || chunk.length > 0;
        return; // keep draining so the child never blocks on a full pipe
      }
      if (chunk.length > remaining) {
        chunks.push(chunk.subarray(0, remaining));
        size = maxBytes;
        truncated = true;
      } else {
        chunks.push(chunk);
        size += chunk.length;
      }
    };

    const finish = (partial: Pick<CommandResult, 'outcome'> & Partial<CommandResult>) => {
      if (finished) {
        return;
      }
      finished = true;
      clearTimeout(timer);
      resolve({
        exitCode,
        signal: exitSignal,
        output: new TextDecoder('utf-8').decode(Buffer.concat(chunks, size), { stream: truncated }),
        outputTruncated: truncated,
        durationMs: Math.max(0, Math.round(clock() - started)),
        requestSummary,
        ...partial,
      });
    };

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(argv[0], argv.slice(1), {
        cwd,
        env: { ...(opts.baseEnv ?? DEFAULT_COMMAND_BASE_ENV), ...(env ?? {}) },
        shell: false,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // own process group, so a timeout kills grandchildren too
        windowsHide: true,
      });
    } catch (err) {
      // synchronous failures: invalid argument types, NUL bytes
      resolve({
        outcome: 'fatal',
        exitCode: null,
        signal: null,
        output: '',
        outputTruncated: false,
        durationMs: Math.max(0, Math.round(clock() - started)),
        error: `failed to start: ${(err as Error).message}`,
        errorKind: 'spawn_failed',
        requestSummary,
      });
      return;
    }

    const killGroup = () => {
      try {
        if (child.pid !== undefined) {
          process.kill(-child.pid, 'SIGKILL');
        }
      } catch {
        child.kill('SIGKILL'); // group already gone, or no group: kill the child itself
      }
    };

    const timer = setTimeout(() => {
      if (finished) {
        return;
      }
      if (exitCode === null && exitSignal === null) {
        timedOut = true;
      }
      killGroup();
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (timedOut) {
        finish({
          outcome: 'retryable',
          signal: 'SIGKILL',
          error: `timeout: command did not finish within ${opts.timeoutMs} ms`,
          errorKind: 'timeout',
        });
      } else {
        // exited in time, but a background process kept the output pipes open
        finish(outcomeForExit());
      }
    }, opts.timeoutMs);

    const outcomeForExit = (): Pick<CommandResult, 'outcome'> & Partial<CommandResult> => {
      if (exitCode === 0) {
        return { outcome: 'success' };
      }
      if (exitCode !== null) {
        return {
          outcome: retryCodes.includes(exitCode) ? 'retryable' : 'fatal',
          error: `exit code ${exitCode}`,
          errorKind: 'exit_code',
        };
      }
      return { outcome: 'fatal', error: `killed by ${exitSignal ?? 'unknown signal'}`, errorKind: 'signal' };
    };

    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', (err: NodeJS.ErrnoException) => {
      finish({ outcome: 'fatal', error: `failed to start: ${err.message}`, errorKind: 'spawn_failed' });
    });
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
    });
    child.on('close', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      finish(outcomeForExit());
    });
  });
}
