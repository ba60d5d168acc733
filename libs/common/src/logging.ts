/**
 * JSON-line logs (docs/operations.md → Logs): one pino logger per process, writing one JSON
 * object per line to stdout, with the context of the request or activity it runs in, and with
 * every field that may hold a secret censored by the logger itself (`redact`), whatever the call
 * site passes. Redaction is the safety net: call sites still never log bodies, headers or values
 * of secrets. Not in the index: it needs `node:async_hooks` and pino, and the index is bundled
 * into workflow code.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** `log.level` / `LOG_LEVEL`: pino's levels, from the most to the least severe, then off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** What the text `[Redacted]` replaces. */
export const REDACTED = '[Redacted]';

/**
 * Field names whose value is censored: credentials and the headers that carry them, signing
 * secrets, workspace secret values, sink headers, bodies, command arguments and environment
 * (they may hold resolved `{{secret.NAME}}` templates), the bound values of a failed SQL query
 * (TypeORM's `QueryFailedError.parameters`), and Temporal's activity task token.
 */
export const REDACTED_KEYS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-csrf-token',
  'csrf_token',
  'webhook-signature',
  'headers',
  'secret',
  'secrets',
  'signing_secret',
  'signing_secrets',
  'signingSecret',
  'signingSecrets',
  'client_secret',
  'encryption_key',
  // `temporal.codec` (its `keys`): `config.temporal.codec` is censored whole.
  'codec',
  // `temporal.connection` (API key, client key and certificates, gRPC metadata): censored whole.
  'connection',
  'password',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'apiKey',
  'key',
  'value',
  'body',
  'payload',
  'response_body',
  'argv',
  'env',
  'parameters',
  'taskToken',
];

/**
 * Top-level fields that hold objects (errors, sinks, jobs, requests …): `REDACTED_KEYS` are
 * censored inside them too, one and two levels down (`err.headers`, `err.cause.headers`,
 * `sink.config.headers`, `job.signingSecrets`).
 */
export const REDACTED_CONTAINERS: readonly string[] = [
  'err',
  'error',
  'cause',
  'details',
  'sink',
  'config',
  'job',
  'run',
  'req',
  'request',
  'res',
  'response',
  'data',
  'input',
  'args',
  'params',
];

/**
 * pino `redact` paths: every key at the top of a line, and under each container one and two
 * levels down. Deliberately no leading `*` (`*.password`): pino applies a leading-wildcard path
 * to every field of every line, which measured 25 µs per line for one level and 150 µs for three
 * (plain pino: 2 µs); a path under a named container costs only the lines that have that field.
 */
export function redactPaths(
  keys: readonly string[] = REDACTED_KEYS,
  containers: readonly string[] = REDACTED_CONTAINERS,
): string[] {
  const segment = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`);
  const top = keys.map((key) => segment(key).replace(/^\./, ''));
  const nested = containers.flatMap((container) =>
    ['', '.*'].flatMap((middle) => keys.map((key) => `${container}${middle}${segment(key)}`)),
  );
  return [...top, ...nested];
}

/**
 * Context fields of the lines written while a request or an activity runs. The store is one
 * mutable object per request or activity execution, so a field learnt on the way (the workspace
 * once authenticated, the attempt number once claimed) is on every later line.
 */
export interface LogFields {
  request_id?: string;
  workspace_id?: string;
  job_id?: string;
  run_id?: string;
  /** The attempt's `n`, as in `GET /api/v1/runs/{id}` (0 for the first). */
  attempt?: number;
  [field: string]: unknown;
}

const logContext = new AsyncLocalStorage<LogFields>();
const NO_FIELDS: LogFields = Object.freeze({});

/** Runs `fn` with `fields` (kept by reference, see `addLogFields`) on every line it writes. */
export function runWithLogFields<T>(fields: LogFields, fn: () => T): T {
  return logContext.run(fields, fn);
}

/** Adds fields to the current request's or activity's lines from here on; no-op outside one. */
export function addLogFields(fields: LogFields): void {
  const store = logContext.getStore();
  if (store) {
    Object.assign(store, fields);
  }
}

export interface CreateLoggerOptions {
  /** The process: `api`, `worker`. */
  name: string;
  level?: LogLevelName;
  /** Where lines go; default `process.stdout` (so tests that capture it see them). */
  destination?: DestinationStream;
}

/**
 * The process's logger: `{"level":"info","time":"<ISO>","pid":…,"hostname":…,"name":"api",
 * …context fields…, …fields…, "msg":"…"}` per line. Errors go under `err` (and Temporal's under
 * `error`) with type, message and stack.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      redact: { paths: redactPaths(), censor: REDACTED },
      mixin: () => logContext.getStore() ?? NO_FIELDS,
      // Into a new object: pino's default assigns the line's fields onto the mixin's (the store).
      mixinMergeStrategy: (line, fields) => Object.assign({}, fields, line),
    },
    options.destination ?? process.stdout,
  );
}

/** Nest's level names as pino's (`log` is `info`, `verbose` is `trace`). */
export const NEST_TO_PINO_LEVEL = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
} as const satisfies Record<string, LogLevelName>;

/**
 * The pino level that writes every level in a Nest level list (`['error', 'warn']` → `warn`);
 * `silent` for an empty list. Nest's lists are sets, pino's levels thresholds: the least severe
 * level listed wins.
 */
export function pinoLevelOfNestLevels(levels: readonly string[]): LogLevelName {
  let lowest = -1;
  for (const level of levels) {
    const pinoLevel = NEST_TO_PINO_LEVEL[level as keyof typeof NEST_TO_PINO_LEVEL];
    if (pinoLevel) {
      lowest = Math.max(lowest, LOG_LEVELS.indexOf(pinoLevel));
    }
  }
  return lowest < 0 ? 'silent' : LOG_LEVELS[lowest];
}
