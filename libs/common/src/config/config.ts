import * as ipaddr from 'ipaddr.js';
import { type AppConfig, DEFAULT_PLANS, LOG_LEVELS, type PlanLimits, SIGN_IN_PROVIDERS } from './app-config';
import { readCodecConfig } from './codec-config';
import { otelDisabled, otelExporterConfigured, type Raw, withEnvOverrides } from './config-env';
import { ConfigReader, NAMESPACE_NAME } from './config-reader';
import { resolveTemporal } from './temporal';

export * from './app-config';

/** What `http.trust_proxy: true` trusts when `http.trusted_proxies` lists none: a proxy on this host. */
export const LOOPBACK_PROXIES = ['127.0.0.0/8', '::1/128'] as const;

/**
 * Builds the typed config from a parsed YAML object and the environment. Throws one Error that
 * lists every invalid key, so a bad deployment fails fast with the whole story.
 */
export function buildConfig(file: Raw, env: Record<string, string | undefined>): AppConfig {
  const { problems, get, str, int, bool, duration, dnsServers, strings, taskQueuePatterns, oneOf } = new ConfigReader(
    withEnvOverrides(file, env),
  );

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
    const v = get(path);
    return v === undefined || v === null ? fallback : runRetentionFloor(path, duration(path, 86_400_000));
  };
  const plans: Record<string, PlanLimits> = { ...DEFAULT_PLANS };
  const filePlans = get('plans');
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
  if (get('limits.min_interval') !== undefined) {
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
  // A burst's lead: 10,000 due at once take 400 s to open at 25 a second. Each prepared attempt
  // holds a worker slot and about 80 KiB while it waits, so the bound is a memory bound.
  const maxPrepareAhead = duration('scheduler.max_prepare_ahead', 600_000);
  if (maxPrepareAhead < prepareAhead || maxPrepareAhead > 1_800_000) {
    problems.push('scheduler.max_prepare_ahead: expected from prepare_ahead to 30m');
  }

  // A parked job comes back a little before its wake (job.workflow.ts), so parking a shorter sleep saves nothing.
  const parkIdleAfterRaw = get('worker.park_idle_after');
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
    /** The OAuth client of `auth.<provider>`: both its id and secret (a problem if only one is set), else null. */
    const oauthClient = (provider: 'github' | 'google', where: string) => {
      const client_id = str(`auth.${provider}.client_id`, '').trim();
      const client_secret = str(`auth.${provider}.client_secret`, '');
      if (Boolean(client_id) !== Boolean(client_secret)) {
        problems.push(`auth.${provider}: expected both client_id and client_secret (${where})`);
      }
      return client_id && client_secret ? { client_id, client_secret } : null;
    };
    const githubClient = oauthClient('github', 'the OAuth app on GitHub');
    const github = githubClient
      ? {
          url: providerUrl('auth.github.url', 'https://github.com'),
          api_url: providerUrl('auth.github.api_url', 'https://api.github.com'),
          ...githubClient,
          // The profile, and the email addresses with their verified flag (GET /user/emails).
          scopes: str('auth.github.scopes', 'read:user user:email'),
        }
      : null;
    const googleClient = oauthClient('google', 'the OAuth client on Google Cloud');
    const google = googleClient
      ? {
          issuer: providerUrl('auth.google.issuer', 'https://accounts.google.com'),
          ...googleClient,
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
      ui_url: get('temporal.ui_url') ? str('temporal.ui_url', '') : null,
      codec: readCodecConfig((path) => get(path), str('temporal.ui_url', '') || null, problems),
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
      max_concurrent_activities: int('worker.max_concurrent_activities', 12_000),
      max_concurrent_workflow_tasks: int('worker.max_concurrent_workflow_tasks', 100),
      // Polls are what bound a worker draining a backlog (a restart after an outage), not its CPU.
      max_concurrent_workflow_task_polls: int('worker.max_concurrent_workflow_task_polls', 50, 2),
      max_concurrent_activity_task_polls: int('worker.max_concurrent_activity_task_polls', 50, 1),
      max_streams_per_connection: int('worker.max_streams_per_connection', 100, 30),
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
      token: get('metrics.token') ? str('metrics.token', '') : null,
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
