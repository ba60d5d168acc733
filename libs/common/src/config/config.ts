import { isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { parseDuration } from '../durations';
import { type CodecConfig, readCodecConfig } from './codec-config';
import { resolveTemporal, type TemporalConnectionSettings } from './temporal';

/**
 * The service's configuration (decisions.md → Config): one YAML file plus environment overrides,
 * validated once at start-up into this typed object. Keys named in the spec keep their names.
 */
/** SMTP settings (`smtp.*`): the server alert emails go through; `tls` as in docs/alerts.md. */
export interface SmtpSettings {
  host: string | null;
  port: number;
  /** `starttls`: upgrade required; `implicit`: TLS from the first byte (465); `none`: plain (local relays). */
  tls: 'starttls' | 'implicit' | 'none';
  user: string | null;
  password: string | null;
  from: string | null;
}

export interface PlanLimits {
  max_jobs_per_workspace: number; // 0 = no cap
  min_interval_ms: number;
  max_runs_per_month_per_workspace: number; // 0 = unlimited
  over_quota_policy: 'block' | 'allow';
  /**
   * How long runs and attempts of this plan's workspaces are kept after they finished
   * (`plans.<name>.run_retention`); null = `runs.retention`.
   */
  run_retention_ms: number | null;
}

/** Dashboard sign-in providers, in the order the sign-in page offers them. */
export const SIGN_IN_PROVIDERS = ['github', 'google', 'oidc'] as const;
export type SignInProviderId = (typeof SIGN_IN_PROVIDERS)[number];

export interface AppConfig {
  mode: 'self_hosted' | 'hosted';
  service_name: string;
  version: string;
  commit: string;
  build_date: string;
  public_url: string;
  http: {
    host: string;
    port: number;
    /**
     * Whether proxy headers are read at all: true exactly when `trusted_proxies` is non-empty
     * (the rate limiter then keys on Fastify's `request.ip`).
     */
    trust_proxy: boolean;
    /**
     * The proxies whose `X-Forwarded-For` is believed (addresses or CIDRs, docs/operations.md →
     * Behind a reverse proxy): the client is the right-most address not in this list. Empty:
     * the TCP peer is the client. `trust_proxy: true` with no list means loopback proxies only.
     */
    trusted_proxies: string[];
  };
  database: { url: string };
  /**
   * `address`, `namespace` and `connection` (TLS, API key, gRPC metadata) are resolved from the
   * standard `TEMPORAL_*` variables, this file's `temporal:` section and a Temporal config file
   * profile, in that order (`resolveTemporal`, docs/operations.md → Connecting to Temporal).
   */
  temporal: {
    address: string;
    namespace: string;
    task_queue: string;
    ui_url: string | null;
    connection: TemporalConnectionSettings;
    /** Payload encryption (codec-config.ts); null = off, the default. */
    codec: CodecConfig | null;
  };
  scheduler: {
    delivery_mode: 'safe' | 'fast';
    misfire_threshold_ms: number;
    default_sla_threshold_ms: number;
    default_auto_disable_threshold: number;
    reconcile_interval_ms: number;
    /**
     * How often the worker looks for stalled runs (open rows whose workflow never started, was
     * lost, or ended without closing them), and how long a run may go without progress before it
     * counts as stalled (docs/operations.md → Stalled runs).
     */
    stalled_run_sweep_interval_ms: number;
    stalled_run_grace_ms: number;
    /** Runs are opened this long before their occurrence; the request still leaves at the scheduled instant. */
    prepare_ahead_ms: number;
    /**
     * Bursts (issue 25): occurrences a second the deployment prepares ahead (runs opened, run
     * workflows started); a burst of N occurrences at one instant is spread over N / rate seconds
     * before it. 0 keeps every occurrence at `prepare_ahead`. Bounded by `max_prepare_ahead`.
     */
    prepare_rate: number;
    max_prepare_ahead_ms: number;
    /** `/readyz` reports `writer_backpressure` when a due run has waited longer than this for its first attempt. */
    writer_backpressure_threshold_ms: number;
  };
  /**
   * Slots of the Temporal worker: concurrent attempt activities and workflow tasks. On SIGTERM
   * the worker stops polling and lets the tasks it holds finish for up to `shutdown_grace_time`
   * (docs/operations.md → Faults); only then are activities still running told to cancel.
   */
  worker: {
    max_concurrent_activities: number;
    max_concurrent_workflow_tasks: number;
    shutdown_grace_time_ms: number;
    /**
     * Workflows kept in the worker's sticky cache (least recently used beyond it are evicted and
     * replayed from history on their next wake): sized for the job workflows that wake often and
     * the runs in flight, so idle jobs cost little memory (docs/benchmarks.md → Idle jobs).
     */
    max_cached_workflows: number;
    /**
     * Issue 25: a job whose next wake is further away than this leaves the worker's cache: it
     * continues-as-new onto `<task_queue>-parked`, served by a worker that caches nothing, and comes
     * back to the task queue shortly before its next occurrence (docs/architecture.md → Idle jobs
     * are parked). 0 = off. Default 1h, applied only above `park_above_jobs`.
     */
    park_idle_after_ms: number;
    /**
     * Jobs park only while the deployment holds more jobs than this (0 = at any count): below it
     * every job sleeps in the cache, whose memory is then small, and keeps the static summary and
     * details the Web UI shows (a parked run, made by continue-as-new, has none; the server does
     * not carry them over). Default 1000.
     */
    park_above_jobs: number;
    /**
     * A folder of this worker's own (`worker.state_dir`, default `.data/worker` under the working
     * directory; `npm start` puts it in its data folder): the service-health transitions not yet
     * recorded as alert events, and the degradations this worker has told, kept across a crash
     * (docs/alerts.md → Service events). One worker process per folder.
     */
    state_dir: string;
  };
  /**
   * `webhook.dns_servers`: resolve webhook hosts through these DNS servers (`ip` or `ip:port`)
   * instead of the system resolver; empty = system resolver (docs/network-rules.md).
   */
  sinks: {
    webhook: { allow_private_networks: boolean; dns_servers: string[] };
    command: { enabled: boolean };
    /**
     * The `temporal_workflow` sink (docs/extending.md): on by default when self-hosted, off in
     * hosted mode unless enabled; `namespaces`: namespaces other than `temporal.namespace` a job
     * may start workflows in (the service's own is always allowed); `task_queues`: namespace →
     * the task-queue patterns (`*` matches any run of characters) jobs may target there; a
     * namespace not listed allows any queue but the service's own (docs/security.md).
     */
    temporal_workflow: { enabled: boolean; namespaces: string[]; task_queues: Record<string, string[]> };
    /**
     * Node modules that export a Nest module providing sink kinds (docs/extending.md), loaded by
     * the API and the worker alike; relative paths resolve from the working directory.
     */
    modules: string[];
  };
  /**
   * `store`: where request counts live: `postgres` (default) shares them between every API
   * replica; `memory` counts per process (one replica only).
   */
  limits: {
    api_rate_limit_per_minute: number;
    schedule_rate_limit_per_minute: number;
    store: 'postgres' | 'memory';
    /** The most occurrences one backfill may cover (issue 45); a larger range is a `400`. */
    backfill_max_occurrences: number;
  };
  plans: Record<string, PlanLimits>;
  default_plan: string;
  /**
   * Attempt response bodies (decisions.md → Response bodies): kept for non-success attempts, and
   * for successful ones only with `store_success_bodies`; set to null `body_retention` after the
   * attempt finished (docs/delivery.md). `retention_ms`: finished runs and their attempts are
   * deleted this long after they finished (`runs.retention`, default 30 days; a plan may set its
   * own `run_retention`); open runs are never deleted (docs/operations.md → Run retention).
   */
  runs: { store_success_bodies: boolean; body_retention_ms: number; retention_ms: number };
  /**
   * Dashboard sign-in (docs/dashboard.md): `dev_login` (email only; development), the GitHub
   * (OAuth2), Google and generic OIDC providers (`providers` lists the configured ones), session
   * lifetime, and where a first-time user lands: `join_workspace` (slug) with `join_role`, else a
   * workspace of their own as owner. Each provider is null unless its client id is set.
   */
  auth: {
    dev_login: boolean;
    providers: SignInProviderId[];
    session_ttl_ms: number;
    join_workspace: string | null;
    join_role: 'owner' | 'admin' | 'member';
    oidc: { issuer: string; client_id: string; client_secret: string | null; scopes: string } | null;
    /** `url`: GitHub's web origin (authorize, token); `api_url`: its REST API (GitHub Enterprise Server: `<url>/api/v3`). */
    github: { url: string; api_url: string; client_id: string; client_secret: string; scopes: string } | null;
    /** `issuer`: Google's OIDC issuer, discovered like generic OIDC's (settable for tests). */
    google: { issuer: string; client_id: string; client_secret: string; scopes: string } | null;
  };
  /**
   * `encryption_key`: 32 bytes (base64 or hex) under which workspace secrets are encrypted at
   * rest; null when unset (the API refuses to start then, see `secretsCipherFromConfig`).
   */
  secrets: { encryption_key: string | null };
  /** How long audit entries are kept (spec → Limits: 30 days by default). */
  audit: { retention_ms: number };
  /**
   * Prometheus metrics (docs/operations.md): the API serves `/metrics` on its own port when
   * `enabled`; the worker serves its own on `worker_port` and the Temporal SDK's on
   * `temporal_sdk_port` (0 = off for either).
   */
  metrics: {
    enabled: boolean;
    worker_port: number;
    temporal_sdk_port: number;
    /** Bearer token `/metrics` requires; without one, only loopback peers may read it. */
    token: string | null;
  };
  /**
   * OpenTelemetry traces (docs/operations.md → Traces), off by default: on when the standard
   * `OTEL_*` variables name an exporter (`OTEL_TRACES_EXPORTER` other than `none`, or an OTLP
   * endpoint), or with `tracing.enabled: true`; never with `OTEL_SDK_DISABLED=true`. The exporter
   * itself is configured by those variables (read by the OpenTelemetry SDK, not here).
   */
  tracing: { enabled: boolean };
  /**
   * The SMTP server alert emails (and address confirmations) go through (docs/alerts.md). Without
   * `host` and `from`, email channels can be created but nothing is mailed. `tls`: `starttls`
   * (upgrade required, default), `implicit` (TLS from connect, usually port 465) or `none`.
   */
  smtp: SmtpSettings;
  /**
   * Alert delivery (docs/alerts.md): `sweep_interval` paces the worker's SLA watch and its restart
   * of alert workflows a crash left unstarted; `max_concurrent_sends` bounds the alert activities
   * one worker runs at once, on their own task queue beside job deliveries; `send_timeout` bounds
   * one send; `retention` is how long alert events are kept. The service's own health
   * (`service.degraded` / `service.recovered`, docs/alerts.md → Service events): a dependency
   * failing for `service_degraded_after` is degraded; schedule lag counts once the oldest due run
   * has waited past `service_lag_threshold`, for `service_lag_after`.
   */
  alerts: {
    sweep_interval_ms: number;
    max_concurrent_sends: number;
    send_timeout_ms: number;
    retention_ms: number;
    service_degraded_after_ms: number;
    service_lag_threshold_ms: number;
    service_lag_after_ms: number;
  };
  /**
   * JSON-line logs on stdout (docs/operations.md → Logs): `level` is pino's threshold, `fatal`,
   * `error`, `warn`, `info` (default), `debug`, `trace` or `silent`.
   */
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
}

const LOG_LEVELS: ReadonlyArray<AppConfig['log']['level']> = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export const DEFAULT_PLANS: Record<string, PlanLimits> = {
  self_hosted: {
    max_jobs_per_workspace: 0,
    min_interval_ms: 1_000,
    max_runs_per_month_per_workspace: 0,
    over_quota_policy: 'allow',
    run_retention_ms: null,
  },
  free: {
    max_jobs_per_workspace: 20,
    min_interval_ms: 60_000,
    max_runs_per_month_per_workspace: 10_000,
    over_quota_policy: 'block',
    run_retention_ms: null,
  },
};

type Raw = Record<string, unknown>;

/** What `http.trust_proxy: true` trusts when `http.trusted_proxies` lists none: a proxy on this host. */
export const LOOPBACK_PROXIES = ['127.0.0.0/8', '::1/128'] as const;
/** Temporal namespace names as this service accepts them. */
const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
/** A task-queue pattern: a task-queue name in which `*` matches any run of characters. */
const TASK_QUEUE_GLOB = /^[A-Za-z0-9*][A-Za-z0-9._:/*-]{0,199}$/;

/** Environment variables that override a config path (the YAML file gives the rest). */
const ENV_OVERRIDES: Array<[string, string]> = [
  ['SVC_MODE', 'mode'],
  ['PUBLIC_URL', 'public_url'],
  ['HOST', 'http.host'],
  ['PORT', 'http.port'],
  ['TRUST_PROXY', 'http.trust_proxy'],
  ['TRUSTED_PROXIES', 'http.trusted_proxies'],
  ['DATABASE_URL', 'database.url'],
  ['TEMPORAL_TASK_QUEUE', 'temporal.task_queue'],
  ['TEMPORAL_UI_URL', 'temporal.ui_url'],
  ['TEMPORAL_CODEC_KEYS', 'temporal.codec.keys'],
  ['TEMPORAL_CODEC_ENCRYPT_KEY_ID', 'temporal.codec.encrypt_key_id'],
  ['TEMPORAL_CODEC_CORS_ORIGINS', 'temporal.codec.cors_origins'],
  ['SCHEDULER_DELIVERY_MODE', 'scheduler.delivery_mode'],
  ['SCHEDULER_MISFIRE_THRESHOLD', 'scheduler.misfire_threshold'],
  ['SCHEDULER_PREPARE_AHEAD', 'scheduler.prepare_ahead'],
  ['SCHEDULER_PREPARE_RATE', 'scheduler.prepare_rate'],
  ['SCHEDULER_MAX_PREPARE_AHEAD', 'scheduler.max_prepare_ahead'],
  ['SCHEDULER_WRITER_BACKPRESSURE_THRESHOLD', 'scheduler.writer_backpressure_threshold'],
  ['SCHEDULER_DEFAULT_SLA_THRESHOLD', 'scheduler.default_sla_threshold'],
  ['SCHEDULER_RECONCILE_INTERVAL', 'scheduler.reconcile_interval'],
  ['SCHEDULER_STALLED_RUN_SWEEP_INTERVAL', 'scheduler.stalled_run_sweep_interval'],
  ['SCHEDULER_STALLED_RUN_GRACE', 'scheduler.stalled_run_grace'],
  ['WORKER_MAX_CONCURRENT_ACTIVITIES', 'worker.max_concurrent_activities'],
  ['WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 'worker.max_concurrent_workflow_tasks'],
  ['WORKER_SHUTDOWN_GRACE_TIME', 'worker.shutdown_grace_time'],
  ['WORKER_MAX_CACHED_WORKFLOWS', 'worker.max_cached_workflows'],
  ['WORKER_PARK_IDLE_AFTER', 'worker.park_idle_after'],
  ['WORKER_PARK_ABOVE_JOBS', 'worker.park_above_jobs'],
  ['WORKER_STATE_DIR', 'worker.state_dir'],
  ['SINKS_WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'sinks.webhook.allow_private_networks'],
  ['SINKS_WEBHOOK_DNS_SERVERS', 'sinks.webhook.dns_servers'],
  ['SINKS_COMMAND_ENABLED', 'sinks.command.enabled'],
  ['SINKS_TEMPORAL_WORKFLOW_ENABLED', 'sinks.temporal_workflow.enabled'],
  ['SINKS_TEMPORAL_WORKFLOW_NAMESPACES', 'sinks.temporal_workflow.namespaces'],
  ['SINKS_TEMPORAL_WORKFLOW_TASK_QUEUES', 'sinks.temporal_workflow.task_queues'],
  ['SINKS_MODULES', 'sinks.modules'],
  ['LIMITS_API_RATE_LIMIT_PER_MINUTE', 'limits.api_rate_limit_per_minute'],
  ['LIMITS_SCHEDULE_RATE_LIMIT_PER_MINUTE', 'limits.schedule_rate_limit_per_minute'],
  ['LIMITS_MIN_INTERVAL', 'limits.min_interval'],
  ['LIMITS_STORE', 'limits.store'],
  ['LIMITS_BACKFILL_MAX_OCCURRENCES', 'limits.backfill_max_occurrences'],
  ['DEFAULT_PLAN', 'default_plan'],
  ['METRICS_ENABLED', 'metrics.enabled'],
  ['METRICS_WORKER_PORT', 'metrics.worker_port'],
  ['METRICS_TEMPORAL_SDK_PORT', 'metrics.temporal_sdk_port'],
  ['METRICS_TOKEN', 'metrics.token'],
  ['AUTH_DEV_LOGIN', 'auth.dev_login'],
  ['AUTH_SESSION_TTL', 'auth.session_ttl'],
  ['AUTH_JOIN_WORKSPACE', 'auth.join_workspace'],
  ['AUTH_JOIN_ROLE', 'auth.join_role'],
  ['AUTH_OIDC_ISSUER', 'auth.oidc.issuer'],
  ['AUTH_OIDC_CLIENT_ID', 'auth.oidc.client_id'],
  ['AUTH_OIDC_CLIENT_SECRET', 'auth.oidc.client_secret'],
  ['AUTH_GITHUB_CLIENT_ID', 'auth.github.client_id'],
  ['AUTH_GITHUB_CLIENT_SECRET', 'auth.github.client_secret'],
  ['AUTH_GITHUB_URL', 'auth.github.url'],
  ['AUTH_GITHUB_API_URL', 'auth.github.api_url'],
  ['AUTH_GOOGLE_CLIENT_ID', 'auth.google.client_id'],
  ['AUTH_GOOGLE_CLIENT_SECRET', 'auth.google.client_secret'],
  ['AUTH_GOOGLE_ISSUER', 'auth.google.issuer'],
  ['SECRETS_ENCRYPTION_KEY', 'secrets.encryption_key'],
  ['AUDIT_RETENTION', 'audit.retention'],
  ['SMTP_HOST', 'smtp.host'],
  ['SMTP_PORT', 'smtp.port'],
  ['SMTP_TLS', 'smtp.tls'],
  ['SMTP_USER', 'smtp.user'],
  ['SMTP_PASSWORD', 'smtp.password'],
  ['SMTP_FROM', 'smtp.from'],
  ['ALERTS_SWEEP_INTERVAL', 'alerts.sweep_interval'],
  ['ALERTS_MAX_CONCURRENT_SENDS', 'alerts.max_concurrent_sends'],
  ['ALERTS_SERVICE_DEGRADED_AFTER', 'alerts.service_degraded_after'],
  ['ALERTS_SERVICE_LAG_THRESHOLD', 'alerts.service_lag_threshold'],
  ['ALERTS_SERVICE_LAG_AFTER', 'alerts.service_lag_after'],
  ['RUNS_STORE_SUCCESS_BODIES', 'runs.store_success_bodies'],
  ['RUNS_BODY_RETENTION', 'runs.body_retention'],
  ['RUNS_RETENTION', 'runs.retention'],
  ['LOG_LEVEL', 'log.level'],
  ['SVC_VERSION', 'version'],
  ['SVC_COMMIT', 'commit'],
  ['SVC_BUILD_DATE', 'build_date'],
];

function setPath(target: Raw, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) {
      node[part] = {};
    }
    node = node[part] as Raw;
  }
  node[parts[parts.length - 1]] = value;
}

function getPath(source: Raw, path: string): unknown {
  let node: unknown = source;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null) {
      return undefined;
    }
    node = (node as Raw)[part];
  }
  return node;
}

/**
 * Builds the typed config from a parsed YAML object and the environment. Throws one Error that
 * lists every invalid key, so a bad deployment fails fast with the whole story.
 */
export function buildConfig(file: Raw, env: Record<string, string | undefined>): AppConfig {
  const raw: Raw = structuredClone(file ?? {});
  for (const [name, path] of ENV_OVERRIDES) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      setPath(raw, path, value);
    }
  }
  const problems: string[] = [];
  const str = (path: string, fallback: string): string => {
    const v = getPath(raw, path);
    if (v === undefined || v === null) {
      return fallback;
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      problems.push(`${path}: expected a string`);
      return fallback;
    }
    return String(v);
  };
  const int = (path: string, fallback: number, min = 0): number => {
    const v = getPath(raw, path);
    if (v === undefined || v === null) {
      return fallback;
    }
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isInteger(n) || n < min) {
      problems.push(`${path}: expected an integer >= ${min}`);
      return fallback;
    }
    return n;
  };
  const bool = (path: string, fallback: boolean): boolean => {
    const v = getPath(raw, path);
    if (v === undefined || v === null) {
      return fallback;
    }
    if (typeof v === 'boolean') {
      return v;
    }
    if (v === 'true' || v === '1') {
      return true;
    }
    if (v === 'false' || v === '0') {
      return false;
    }
    problems.push(`${path}: expected true or false`);
    return fallback;
  };
  const duration = (path: string, fallback: number): number => {
    const v = getPath(raw, path);
    if (v === undefined || v === null) {
      return fallback;
    }
    const ms = typeof v === 'string' ? parseDuration(v) : null;
    if (ms === null) {
      problems.push(`${path}: expected a duration such as 30s or 1h30m`);
      return fallback;
    }
    return ms;
  };
  /** A list of DNS servers: a YAML list, or a comma-separated string (environment). */
  const dnsServers = (path: string): string[] => {
    const v = getPath(raw, path);
    if (v === undefined || v === null || v === '') {
      return [];
    }
    const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()) : v;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && isDnsServer(x))) {
      problems.push(`${path}: expected a list of DNS server addresses (ip, ip:port or [ipv6]:port)`);
      return [];
    }
    return list as string[];
  };
  /** A list of strings: an array, or one comma-separated string (environment variables). */
  const strings = (path: string, valid: (item: string) => boolean, expected: string): string[] => {
    const v = getPath(raw, path);
    if (v === undefined || v === null || v === '') {
      return [];
    }
    const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()) : v;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && valid(x))) {
      problems.push(`${path}: expected ${expected}`);
      return [];
    }
    return list as string[];
  };
  /**
   * Namespace → task-queue patterns: a YAML map of lists, or (environment) `ns=a,b*;ns2=c`.
   * A namespace listed with no pattern allows no queue.
   */
  const taskQueuePatterns = (path: string): Record<string, string[]> => {
    const v = getPath(raw, path);
    if (v === undefined || v === null || v === '') {
      return {};
    }
    const entries =
      typeof v === 'string'
        ? v
            .split(';')
            .map((item) => item.trim())
            .filter((item) => item !== '')
            .map((item) => {
              const at = item.indexOf('=');
              return at < 0
                ? [item, null]
                : [
                    item.slice(0, at).trim(),
                    item
                      .slice(at + 1)
                      .split(',')
                      .map((x) => x.trim())
                      .filter((x) => x !== ''),
                  ];
            })
        : typeof v === 'object' && !Array.isArray(v)
          ? Object.entries(v as Raw)
          : null;
    const out: Record<string, string[]> = {};
    const valid =
      entries !== null &&
      entries.every(([namespace, patterns]) => {
        const list = typeof patterns === 'string' ? patterns.split(',').map((x) => x.trim()) : patterns;
        if (
          typeof namespace !== 'string' ||
          !NAMESPACE_NAME.test(namespace) ||
          !Array.isArray(list) ||
          !list.every((p) => typeof p === 'string' && TASK_QUEUE_GLOB.test(p))
        ) {
          return false;
        }
        out[namespace] = list as string[];
        return true;
      });
    if (!valid) {
      problems.push(
        `${path}: expected namespace → list of task-queue patterns (letters, digits, . _ : / - and *), e.g. SINKS_TEMPORAL_WORKFLOW_TASK_QUEUES='default=reports-*,etl'`,
      );
      return {};
    }
    return out;
  };
  const oneOf = <T extends string>(path: string, values: readonly T[], fallback: T): T => {
    const v = str(path, fallback);
    if (!(values as readonly string[]).includes(v)) {
      problems.push(`${path}: expected one of ${values.join(', ')}`);
      return fallback;
    }
    return v as T;
  };

  const mode = oneOf('mode', ['self_hosted', 'hosted'] as const, 'self_hosted');
  const port = int('http.port', 3000);
  // Never Fastify's `trustProxy: true` (the left-most X-Forwarded-For hop, which any client
  // writes): a list of proxies, and `trust_proxy: true` alone trusts a same-host proxy only.
  const listedProxies = strings(
    'http.trusted_proxies',
    (item) => ipaddr.isValid(item) || ipaddr.isValidCIDR(item),
    'a list of proxy addresses or CIDRs (10.0.0.5, 10.0.0.0/8, fd00::/8)',
  );
  const trustProxyFlag = bool('http.trust_proxy', false);
  const trustedProxies = listedProxies.length > 0 ? listedProxies : trustProxyFlag ? [...LOOPBACK_PROXIES] : [];
  // Runs and attempts are kept at least a day: the purge never races a run's own retries.
  const runRetentionFloor = (path: string, ms: number): number => {
    if (ms < 86_400_000) {
      problems.push(`${path}: expected at least 1d`);
    }
    return ms;
  };
  const runRetention = runRetentionFloor('runs.retention', duration('runs.retention', 30 * 86_400_000));
  const planRunRetention = (name: string, fallback: number | null): number | null => {
    const path = `plans.${name}.run_retention`;
    const v = getPath(raw, path);
    return v === undefined || v === null ? fallback : runRetentionFloor(path, duration(path, 86_400_000));
  };
  const plans: Record<string, PlanLimits> = { ...DEFAULT_PLANS };
  const filePlans = getPath(raw, 'plans');
  if (filePlans && typeof filePlans === 'object') {
    for (const name of Object.keys(filePlans)) {
      const base = plans[name] ?? DEFAULT_PLANS.self_hosted;
      plans[name] = {
        max_jobs_per_workspace: int(`plans.${name}.max_jobs_per_workspace`, base.max_jobs_per_workspace),
        min_interval_ms: duration(`plans.${name}.min_interval`, base.min_interval_ms),
        max_runs_per_month_per_workspace: int(
          `plans.${name}.max_runs_per_month_per_workspace`,
          base.max_runs_per_month_per_workspace,
        ),
        over_quota_policy: oneOf(
          `plans.${name}.over_quota_policy`,
          ['block', 'allow'] as const,
          base.over_quota_policy,
        ),
        run_retention_ms: planRunRetention(name, base.run_retention_ms),
      };
    }
  }
  const defaultPlan = str('default_plan', mode === 'hosted' ? 'free' : 'self_hosted');
  if (!plans[defaultPlan]) {
    problems.push(`default_plan: unknown plan ${defaultPlan}`);
  }
  // `limits.min_interval` overrides the minimum gap of every plan (handy for operators and tests).
  if (getPath(raw, 'limits.min_interval') !== undefined) {
    const minInterval = duration('limits.min_interval', 1_000);
    for (const name of Object.keys(plans)) {
      plans[name] = { ...plans[name], min_interval_ms: minInterval };
    }
  }
  const apiRate = int('limits.api_rate_limit_per_minute', 600);
  // Format only (32 bytes as hex or base64); the message never repeats the value.
  const secretsKey = str('secrets.encryption_key', '').trim();
  if (secretsKey && !/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43}=?)$/.test(secretsKey)) {
    problems.push('secrets.encryption_key: expected 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)');
  }
  const bodyRetention = duration('runs.body_retention', 7 * 86_400_000);
  if (bodyRetention < 3_600_000) {
    problems.push('runs.body_retention: expected at least 1h');
  }
  const auditRetention = duration('audit.retention', 30 * 86_400_000);
  if (auditRetention < 3_600_000) {
    problems.push('audit.retention: expected at least 1h');
  }
  // The attempt holds a worker slot while it waits for its instant; a few seconds is plenty.
  const prepareAhead = duration('scheduler.prepare_ahead', 1_000);
  if (prepareAhead > 10_000) {
    problems.push('scheduler.prepare_ahead: expected at most 10s');
  }
  // A burst's lead: its attempts wait inside their 150 s start-to-close, beside the request.
  const maxPrepareAhead = duration('scheduler.max_prepare_ahead', 60_000);
  if (maxPrepareAhead < prepareAhead || maxPrepareAhead > 120_000) {
    problems.push('scheduler.max_prepare_ahead: expected from prepare_ahead to 120s');
  }

  // A parked job comes back a little before its wake (job.workflow.ts), so parking a shorter sleep saves nothing.
  const parkIdleAfterRaw = getPath(raw, 'worker.park_idle_after');
  const parkIdleAfter =
    parkIdleAfterRaw === 0 || parkIdleAfterRaw === '0' || parkIdleAfterRaw === 'off'
      ? 0
      : duration('worker.park_idle_after', 3_600_000);
  if (parkIdleAfter !== 0 && parkIdleAfter < 120_000) {
    problems.push('worker.park_idle_after: expected 0 (off) or at least 2m');
  }

  const authConfig = (): AppConfig['auth'] => {
    const issuer = str('auth.oidc.issuer', '');
    const clientId = str('auth.oidc.client_id', '');
    if (issuer && (!clientId || !/^https?:\/\//.test(issuer))) {
      problems.push('auth.oidc: expected an http(s) issuer URL and a client_id');
    }
    const oidc =
      issuer && clientId
        ? {
            issuer,
            client_id: clientId,
            client_secret: str('auth.oidc.client_secret', '') || null,
            scopes: str('auth.oidc.scopes', 'openid email profile'),
          }
        : null;
    // Provider URLs: https, or plain http on a loopback address (a stand-in on this machine).
    const providerUrl = (path: string, fallback: string): string => {
      const value = str(path, fallback).trim().replace(/\/+$/, '');
      if (!isHttpsOrLoopbackHttp(value)) {
        problems.push(`${path}: expected an https URL (plain http only on 127.0.0.1, ::1 or localhost)`);
      }
      return value;
    };
    const githubId = str('auth.github.client_id', '').trim();
    const githubSecret = str('auth.github.client_secret', '');
    if (Boolean(githubId) !== Boolean(githubSecret)) {
      problems.push('auth.github: expected both client_id and client_secret (the OAuth app on GitHub)');
    }
    const github =
      githubId && githubSecret
        ? {
            url: providerUrl('auth.github.url', 'https://github.com'),
            api_url: providerUrl('auth.github.api_url', 'https://api.github.com'),
            client_id: githubId,
            client_secret: githubSecret,
            // The profile, and the email addresses with their verified flag (GET /user/emails).
            scopes: str('auth.github.scopes', 'read:user user:email'),
          }
        : null;
    const googleId = str('auth.google.client_id', '').trim();
    const googleSecret = str('auth.google.client_secret', '');
    if (Boolean(googleId) !== Boolean(googleSecret)) {
      problems.push('auth.google: expected both client_id and client_secret (the OAuth client on Google Cloud)');
    }
    const google =
      googleId && googleSecret
        ? {
            issuer: providerUrl('auth.google.issuer', 'https://accounts.google.com'),
            client_id: googleId,
            client_secret: googleSecret,
            scopes: str('auth.google.scopes', 'openid email profile'),
          }
        : null;
    const configured = { github, google, oidc };
    return {
      dev_login: bool('auth.dev_login', false),
      providers: SIGN_IN_PROVIDERS.filter((id) => configured[id] !== null),
      session_ttl_ms: duration('auth.session_ttl', 7 * 86_400_000),
      join_workspace: str('auth.join_workspace', '') || null,
      join_role: oneOf('auth.join_role', ['owner', 'admin', 'member'] as const, 'member'),
      oidc,
      github,
      google,
    };
  };

  const smtpHost = str('smtp.host', '').trim() || null;
  const sweepInterval = duration('alerts.sweep_interval', 5_000);
  if (sweepInterval < 500) {
    problems.push('alerts.sweep_interval: expected at least 500ms');
  }
  const smtp: AppConfig['smtp'] = {
    host: smtpHost,
    port: int('smtp.port', 587, 1),
    tls: oneOf('smtp.tls', ['starttls', 'implicit', 'none'] as const, 'starttls'),
    user: str('smtp.user', '').trim() || null,
    // Never echoed in an error or a log line.
    password: str('smtp.password', '') || null,
    from: str('smtp.from', '').trim() || null,
  };
  if (smtpHost && !smtp.from) {
    problems.push('smtp.from: required when smtp.host is set (the From address of alert mails)');
  }
  const alerts: AppConfig['alerts'] = {
    sweep_interval_ms: sweepInterval,
    max_concurrent_sends: int('alerts.max_concurrent_sends', 20, 1),
    send_timeout_ms: duration('alerts.send_timeout', 15_000),
    retention_ms: duration('alerts.retention', 30 * 86_400_000),
    service_degraded_after_ms: duration('alerts.service_degraded_after', 30_000),
    service_lag_threshold_ms: duration('alerts.service_lag_threshold', 60_000),
    service_lag_after_ms: duration('alerts.service_lag_after', 5 * 60_000),
  };
  for (const key of ['service_degraded_after', 'service_lag_threshold', 'service_lag_after'] as const) {
    if (alerts[`${key}_ms`] < 1_000) {
      problems.push(`alerts.${key}: expected at least 1s`);
    }
  }
  // Case-insensitive, so the `LOG_LEVEL=INFO` habit of other services works too.
  const logLevel = str('log.level', 'info').toLowerCase() as AppConfig['log']['level'];
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`log.level: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const config: AppConfig = {
    mode,
    service_name: str('service_name', 'svc-scheduler'),
    version: str('version', '0.1.0'),
    commit: str('commit', 'unknown'),
    build_date: str('build_date', 'unknown'),
    public_url: str('public_url', `http://127.0.0.1:${port}`),
    http: {
      host: str('http.host', '127.0.0.1'),
      port,
      trust_proxy: trustedProxies.length > 0,
      trusted_proxies: trustedProxies,
    },
    database: { url: str('database.url', 'postgres://postgres@127.0.0.1:5432/svc') },
    temporal: {
      // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and the TLS/API-key variables are read by
      // @temporalio/envconfig, as the `temporal` CLI reads them (./temporal.ts).
      ...resolveTemporal(temporalSection(file), env, problems),
      task_queue: str('temporal.task_queue', 'svc-jobs'),
      ui_url: getPath(raw, 'temporal.ui_url') ? str('temporal.ui_url', '') : null,
      codec: readCodecConfig((path) => getPath(raw, path), str('temporal.ui_url', '') || null, problems),
    },
    scheduler: {
      delivery_mode: oneOf('scheduler.delivery_mode', ['safe', 'fast'] as const, 'safe'),
      misfire_threshold_ms: duration('scheduler.misfire_threshold', 60_000),
      default_sla_threshold_ms: duration('scheduler.default_sla_threshold', 300_000),
      default_auto_disable_threshold: int('scheduler.default_auto_disable_threshold', 10),
      reconcile_interval_ms: duration('scheduler.reconcile_interval', 300_000),
      stalled_run_sweep_interval_ms: duration('scheduler.stalled_run_sweep_interval', 20_000),
      stalled_run_grace_ms: duration('scheduler.stalled_run_grace', 40_000),
      prepare_ahead_ms: prepareAhead,
      prepare_rate: int('scheduler.prepare_rate', 25),
      max_prepare_ahead_ms: maxPrepareAhead,
      writer_backpressure_threshold_ms: duration('scheduler.writer_backpressure_threshold', 30_000),
    },
    worker: {
      // Attempts waiting for their instant hold a slot (a timer, no request): a burst of N needs N.
      max_concurrent_activities: int('worker.max_concurrent_activities', 2_000),
      max_concurrent_workflow_tasks: int('worker.max_concurrent_workflow_tasks', 100),
      // The attempt activity's start-to-close: the longest job timeout (120 s) plus its bookkeeping.
      shutdown_grace_time_ms: duration('worker.shutdown_grace_time', 150_000),
      max_cached_workflows: int('worker.max_cached_workflows', 2_500, 1),
      park_idle_after_ms: parkIdleAfter,
      park_above_jobs: int('worker.park_above_jobs', 1_000, 0),
      state_dir: str('worker.state_dir', '.data/worker'),
    },
    sinks: {
      webhook: {
        allow_private_networks: bool('sinks.webhook.allow_private_networks', mode !== 'hosted'),
        dns_servers: dnsServers('sinks.webhook.dns_servers'),
      },
      command: { enabled: bool('sinks.command.enabled', false) },
      temporal_workflow: {
        enabled: bool('sinks.temporal_workflow.enabled', mode !== 'hosted'),
        namespaces: strings(
          'sinks.temporal_workflow.namespaces',
          (ns) => NAMESPACE_NAME.test(ns),
          'a list of Temporal namespace names',
        ),
        task_queues: taskQueuePatterns('sinks.temporal_workflow.task_queues'),
      },
      modules: strings('sinks.modules', (m) => m.length > 0, 'a list of module paths'),
    },
    limits: {
      api_rate_limit_per_minute: apiRate,
      schedule_rate_limit_per_minute: int('limits.schedule_rate_limit_per_minute', apiRate === 0 ? 0 : 60),
      store: oneOf('limits.store', ['postgres', 'memory'] as const, 'postgres'),
      backfill_max_occurrences: int('limits.backfill_max_occurrences', 10_000, 1),
    },
    plans,
    default_plan: defaultPlan,
    runs: {
      store_success_bodies: bool('runs.store_success_bodies', false),
      body_retention_ms: bodyRetention,
      retention_ms: runRetention,
    },
    auth: authConfig(),
    secrets: { encryption_key: secretsKey || null },
    audit: { retention_ms: auditRetention },
    metrics: {
      enabled: bool('metrics.enabled', true),
      worker_port: int('metrics.worker_port', 9464),
      temporal_sdk_port: int('metrics.temporal_sdk_port', 9465),
      token: getPath(raw, 'metrics.token') ? str('metrics.token', '') : null,
    },
    smtp,
    alerts,
    tracing: { enabled: bool('tracing.enabled', otelExporterConfigured(env)) && !otelDisabled(env) },
    log: { level: logLevel },
  };
  if (problems.length > 0) {
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return config;
}

/** The YAML file's `temporal:` section (before environment overrides: envconfig applies those). */
function temporalSection(file: Raw): Raw {
  const section = file?.temporal;
  return typeof section === 'object' && section !== null && !Array.isArray(section) ? (section as Raw) : {};
}

/** True when the standard OpenTelemetry variables ask for a trace exporter. */
function otelExporterConfigured(env: Record<string, string | undefined>): boolean {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.length > 0) {
    return !exporters.every((name) => name === 'none');
  }
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** `OTEL_SDK_DISABLED=true` (case-insensitive, as the specification reads it) turns the SDK off. */
function otelDisabled(env: Record<string, string | undefined>): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
}

/** `1.1.1.1`, `1.1.1.1:53`, `2606:4700:4700::1111` or `[2606:4700:4700::1111]:53`. */
function isDnsServer(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    return isIP(bracketed[1]) === 6 && validPort(bracketed[2]);
  }
  if (isIP(text) !== 0) {
    return true;
  }
  const hostPort = /^([^:]+):(\d{1,5})$/.exec(text);
  return hostPort !== null && isIP(hostPort[1]) === 4 && validPort(hostPort[2]);
}

function validPort(port: string | undefined): boolean {
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/** A plain-http URL on a loopback host (a sign-in provider's stand-in on this machine). */
export function isLoopbackHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

/** An https URL, or plain http on a loopback host. */
function isHttpsOrLoopbackHttp(text: string): boolean {
  return /^https:\/\/[^/]/.test(text) ? URL.canParse(text) : isLoopbackHttpUrl(text);
}
