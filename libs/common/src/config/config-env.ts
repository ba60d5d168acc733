/** Where the environment enters the config: variables that override a YAML path, and the OpenTelemetry ones. */

export type Raw = Record<string, unknown>;

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
  ['WORKER_MAX_CONCURRENT_WORKFLOW_TASK_POLLS', 'worker.max_concurrent_workflow_task_polls'],
  ['WORKER_MAX_CONCURRENT_ACTIVITY_TASK_POLLS', 'worker.max_concurrent_activity_task_polls'],
  ['WORKER_MAX_STREAMS_PER_CONNECTION', 'worker.max_streams_per_connection'],
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

export function getPath(source: Raw, path: string): unknown {
  let node: unknown = source;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null) {
      return undefined;
    }
    node = (node as Raw)[part];
  }
  return node;
}

/** The YAML tree with every set, non-empty override variable written over its path. */
export function withEnvOverrides(file: Raw, env: Record<string, string | undefined>): Raw {
  const raw: Raw = structuredClone(file ?? {});
  for (const [name, path] of ENV_OVERRIDES) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      setPath(raw, path, value);
    }
  }
  return raw;
}

/** True when the standard OpenTelemetry variables ask for a trace exporter. */
export function otelExporterConfigured(env: Record<string, string | undefined>): boolean {
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
export function otelDisabled(env: Record<string, string | undefined>): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
}
