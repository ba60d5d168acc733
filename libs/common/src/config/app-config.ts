import type { CodecConfig } from './codec-config';
import type { TemporalConnectionSettings } from './temporal';

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
     * Bursts: occurrences a second the deployment prepares ahead (runs opened, run
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
    /**
     * Long polls each worker (jobs', runs') keeps open for workflow tasks, half of them on its
     * sticky queue, and for activity tasks. After an outage or a restart every task waits on the
     * shared queue, where each poll returns one task a round trip: with the SDK's default of 10
     * (2 on the shared queue) a worker drained about 20 workflow tasks a second with most of its
     * CPU idle, below what a busy deployment adds, so the backlog never cleared
     * (docs/operations.md → An afternoon's incident). Capped at the slots they fill.
     */
    max_concurrent_workflow_task_polls: number;
    max_concurrent_activity_task_polls: number;
    /**
     * Concurrent HTTP/2 streams a connection to Temporal may hold: what a proxy in front of the
     * frontend allows (nginx 128, HAProxy 100, AWS ALB 128). Long polls hold a stream each for up
     * to a minute, so a worker that opened more of them than this on one connection left no stream
     * for the calls that complete its tasks; each connection's polls stay 25 under it.
     */
    max_streams_per_connection: number;
    shutdown_grace_time_ms: number;
    /**
     * Workflows kept in the worker's sticky cache (least recently used beyond it are evicted and
     * replayed from history on their next wake): sized for the job workflows that wake often and
     * the runs in flight, so idle jobs cost little memory (docs/benchmarks.md → Idle jobs).
     */
    max_cached_workflows: number;
    /**
     * A job whose next wake is further away than this leaves the worker's cache: it
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
    /** The most occurrences one backfill may cover; a larger range is a `400`. */
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

export const LOG_LEVELS: ReadonlyArray<AppConfig['log']['level']> = [
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
