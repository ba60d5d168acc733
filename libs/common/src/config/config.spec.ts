import { buildConfig } from './config';

describe('buildConfig', () => {
  it('should give the documented defaults for a self-hosted server', () => {
    const config = buildConfig({}, {});
    expect(config).toMatchObject({
      mode: 'self_hosted',
      http: { host: '127.0.0.1', port: 3000, trust_proxy: false },
      temporal: { address: 'localhost:7233', namespace: 'default', task_queue: 'svc-jobs' },
      scheduler: { delivery_mode: 'safe', misfire_threshold_ms: 60_000, default_sla_threshold_ms: 300_000 },
      sinks: { webhook: { allow_private_networks: true }, command: { enabled: false } },
      limits: { api_rate_limit_per_minute: 600, schedule_rate_limit_per_minute: 60 },
      default_plan: 'self_hosted',
    });
    expect(config.plans.self_hosted.min_interval_ms).toBe(1_000);
  });

  it('should let the environment override the YAML file', () => {
    const config = buildConfig(
      { http: { port: 4000 }, scheduler: { misfire_threshold: '30s' } },
      { PORT: '5000', DATABASE_URL: 'postgres://x/y', SCHEDULER_MISFIRE_THRESHOLD: '2m' },
    );
    expect(config.http.port).toBe(5000);
    expect(config.database.url).toBe('postgres://x/y');
    expect(config.scheduler.misfire_threshold_ms).toBe(120_000);
  });

  describe('sign-in providers', () => {
    it('should configure GitHub and Google from the environment, with the public endpoints by default', () => {
      const config = buildConfig(
        {},
        {
          AUTH_GITHUB_CLIENT_ID: 'gh-id',
          AUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
          AUTH_GOOGLE_CLIENT_ID: 'g-id.apps.googleusercontent.com',
          AUTH_GOOGLE_CLIENT_SECRET: 'g-secret',
        },
      );
      expect(config.auth.providers).toEqual(['github', 'google']);
      expect(config.auth.github).toEqual({
        url: 'https://github.com',
        api_url: 'https://api.github.com',
        client_id: 'gh-id',
        client_secret: 'gh-secret',
        scopes: 'read:user user:email',
      });
      expect(config.auth.google).toEqual({
        issuer: 'https://accounts.google.com',
        client_id: 'g-id.apps.googleusercontent.com',
        client_secret: 'g-secret',
        scopes: 'openid email profile',
      });
    });

    it('should take GitHub Enterprise Server URLs and list providers in a fixed order', () => {
      const config = buildConfig(
        {
          auth: {
            oidc: { issuer: 'https://id.example.com', client_id: 'o' },
            github: { client_id: 'a', client_secret: 'b', url: 'https://ghe.example.com/' },
          },
        },
        { AUTH_GITHUB_API_URL: 'https://ghe.example.com/api/v3' },
      );
      expect(config.auth.providers).toEqual(['github', 'oidc']);
      expect(config.auth.github).toMatchObject({
        url: 'https://ghe.example.com',
        api_url: 'https://ghe.example.com/api/v3',
      });
      expect(config.auth.google).toBeNull();
    });

    it('should refuse half a client and plain-http provider URLs off loopback, never echoing the secret', () => {
      expect(() => buildConfig({}, { AUTH_GITHUB_CLIENT_ID: 'a' })).toThrow(/auth\.github: expected both client_id/);
      expect(() => buildConfig({}, { AUTH_GOOGLE_CLIENT_SECRET: 'only-the-secret' })).toThrow(
        /auth\.google: expected both client_id/,
      );
      expect(() =>
        buildConfig(
          {},
          { AUTH_GITHUB_CLIENT_ID: 'a', AUTH_GITHUB_CLIENT_SECRET: 'b', AUTH_GITHUB_URL: 'http://gh.example.com' },
        ),
      ).toThrow(/auth\.github\.url: expected an https URL/);
      const error = (() => {
        try {
          buildConfig(
            {},
            { AUTH_GOOGLE_CLIENT_ID: 'a', AUTH_GOOGLE_CLIENT_SECRET: 's3cr3t', AUTH_GOOGLE_ISSUER: 'nope' },
          );
        } catch (err) {
          return (err as Error).message;
        }
        return '';
      })();
      expect(error).toMatch(/auth\.google\.issuer/);
      expect(error).not.toContain('s3cr3t');
      expect(
        buildConfig(
          {},
          { AUTH_GOOGLE_CLIENT_ID: 'a', AUTH_GOOGLE_CLIENT_SECRET: 'b', AUTH_GOOGLE_ISSUER: 'http://127.0.0.1:9' },
        ).auth.google?.issuer,
      ).toBe('http://127.0.0.1:9');
    });
  });

  it('should read the burst preparation and worker cache settings, with bounds', () => {
    expect(buildConfig({}, {})).toMatchObject({
      scheduler: { prepare_ahead_ms: 1_000, prepare_rate: 25, max_prepare_ahead_ms: 600_000 },
      worker: { max_concurrent_activities: 12_000, max_cached_workflows: 2_500 },
    });
    const tuned = buildConfig(
      {},
      { SCHEDULER_PREPARE_RATE: '0', SCHEDULER_MAX_PREPARE_AHEAD: '90s', WORKER_MAX_CACHED_WORKFLOWS: '500' },
    );
    expect(tuned.scheduler).toMatchObject({ prepare_rate: 0, max_prepare_ahead_ms: 90_000 });
    expect(tuned.worker.max_cached_workflows).toBe(500);
    expect(buildConfig({}, { SCHEDULER_MAX_PREPARE_AHEAD: '30m' }).scheduler.max_prepare_ahead_ms).toBe(1_800_000);
    expect(() => buildConfig({}, { SCHEDULER_MAX_PREPARE_AHEAD: '31m' })).toThrow(/max_prepare_ahead/);
    expect(() => buildConfig({ scheduler: { max_prepare_ahead: '500ms' } }, {})).toThrow(/max_prepare_ahead/);
    expect(() => buildConfig({}, { WORKER_MAX_CACHED_WORKFLOWS: '0' })).toThrow(/max_cached_workflows/);
  });

  it('should read the worker poll counts, 50 each by default, at least 2 workflow and 1 activity poll', () => {
    expect(buildConfig({}, {}).worker).toMatchObject({
      max_concurrent_workflow_task_polls: 50,
      max_concurrent_activity_task_polls: 50,
    });
    const tuned = buildConfig(
      {},
      { WORKER_MAX_CONCURRENT_WORKFLOW_TASK_POLLS: '8', WORKER_MAX_CONCURRENT_ACTIVITY_TASK_POLLS: '4' },
    );
    expect(tuned.worker).toMatchObject({
      max_concurrent_workflow_task_polls: 8,
      max_concurrent_activity_task_polls: 4,
    });
    expect(() => buildConfig({}, { WORKER_MAX_CONCURRENT_WORKFLOW_TASK_POLLS: '1' })).toThrow(
      /max_concurrent_workflow_task_polls/,
    );
    expect(() => buildConfig({}, { WORKER_MAX_CONCURRENT_ACTIVITY_TASK_POLLS: '0' })).toThrow(
      /max_concurrent_activity_task_polls/,
    );
  });

  it('should leave parking off by default, and read it as a duration or 0 / off', () => {
    expect(buildConfig({}, {}).worker.park_idle_after_ms).toBe(3_600_000);
    expect(buildConfig({}, {}).worker.park_above_jobs).toBe(1_000);
    expect(buildConfig({}, { WORKER_PARK_ABOVE_JOBS: '0' }).worker.park_above_jobs).toBe(0);
    expect(() => buildConfig({}, { WORKER_PARK_ABOVE_JOBS: '-1' })).toThrow(/park_above_jobs/);
    expect(() => buildConfig({}, { WORKER_PARK_ABOVE_JOBS: 'many' })).toThrow(/park_above_jobs/);
    expect(buildConfig({}, { WORKER_PARK_IDLE_AFTER: '5m' }).worker.park_idle_after_ms).toBe(300_000);
    expect(buildConfig({}, { WORKER_PARK_IDLE_AFTER: '30m' }).worker.park_idle_after_ms).toBe(1_800_000);
    expect(buildConfig({}, { WORKER_PARK_IDLE_AFTER: '0' }).worker.park_idle_after_ms).toBe(0);
    expect(buildConfig({ worker: { park_idle_after: 'off' } }, {}).worker.park_idle_after_ms).toBe(0);
    expect(buildConfig({ worker: { park_idle_after: 0 } }, {}).worker.park_idle_after_ms).toBe(0);
    expect(() => buildConfig({}, { WORKER_PARK_IDLE_AFTER: '90s' })).toThrow(/park_idle_after/);
    expect(() => buildConfig({}, { WORKER_PARK_IDLE_AFTER: 'soon' })).toThrow(/park_idle_after/);
  });

  it('should default a hosted server to the free plan and refuse private networks', () => {
    const config = buildConfig({ mode: 'hosted' }, {});
    expect(config.default_plan).toBe('free');
    expect(config.sinks.webhook.allow_private_networks).toBe(false);
    expect(config.plans.free).toMatchObject({ max_jobs_per_workspace: 20, min_interval_ms: 60_000 });
  });

  it('should read the temporal_workflow task-queue allowlists from a YAML map or the variable', () => {
    expect(buildConfig({}, {}).sinks.temporal_workflow.task_queues).toEqual({});
    expect(
      buildConfig({ sinks: { temporal_workflow: { task_queues: { default: ['reports-*', 'etl'], other: [] } } } }, {})
        .sinks.temporal_workflow.task_queues,
    ).toEqual({ default: ['reports-*', 'etl'], other: [] });
    expect(
      buildConfig({}, { SINKS_TEMPORAL_WORKFLOW_TASK_QUEUES: 'default=reports-*, etl; team.ns=team/*;none=' }).sinks
        .temporal_workflow.task_queues,
    ).toEqual({ default: ['reports-*', 'etl'], 'team.ns': ['team/*'], none: [] });
    for (const bad of ['default', 'default=has space', 'bad ns=q', '=q']) {
      expect(() => buildConfig({}, { SINKS_TEMPORAL_WORKFLOW_TASK_QUEUES: bad })).toThrow(
        /sinks\.temporal_workflow\.task_queues/,
      );
    }
    expect(() => buildConfig({ sinks: { temporal_workflow: { task_queues: ['q'] } } }, {})).toThrow(
      /sinks\.temporal_workflow\.task_queues/,
    );
    expect(() => buildConfig({ sinks: { temporal_workflow: { task_queues: { default: 'q' } } } }, {})).not.toThrow();
  });

  it('should keep the temporal_workflow sink off in hosted mode unless enabled', () => {
    expect(buildConfig({ mode: 'hosted' }, {}).sinks.temporal_workflow.enabled).toBe(false);
    expect(
      buildConfig({ mode: 'hosted' }, { SINKS_TEMPORAL_WORKFLOW_ENABLED: 'true' }).sinks.temporal_workflow.enabled,
    ).toBe(true);
    expect(buildConfig({}, {}).sinks.temporal_workflow.enabled).toBe(true);
  });

  it('should read webhook DNS servers from a YAML list or a comma-separated variable', () => {
    expect(buildConfig({}, {}).sinks.webhook.dns_servers).toEqual([]);
    expect(
      buildConfig({ sinks: { webhook: { dns_servers: ['1.1.1.1', '[2606:4700:4700::1111]:53'] } } }, {}).sinks.webhook
        .dns_servers,
    ).toEqual(['1.1.1.1', '[2606:4700:4700::1111]:53']);
    expect(buildConfig({}, { SINKS_WEBHOOK_DNS_SERVERS: '127.0.0.1:5353, 9.9.9.9' }).sinks.webhook.dns_servers).toEqual(
      ['127.0.0.1:5353', '9.9.9.9'],
    );
    expect(() => buildConfig({}, { SINKS_WEBHOOK_DNS_SERVERS: 'dns.example.com' })).toThrow(
      /sinks\.webhook\.dns_servers/,
    );
    expect(() => buildConfig({ sinks: { webhook: { dns_servers: ['1.1.1.1:99999'] } } }, {})).toThrow(
      /sinks\.webhook\.dns_servers/,
    );
  });

  it('should report every invalid key at once', () => {
    expect(() =>
      buildConfig(
        { mode: 'cloud', http: { port: -1 }, scheduler: { misfire_threshold: 'soon' } },
        { SINKS_COMMAND_ENABLED: 'maybe' },
      ),
    ).toThrow(/mode[\s\S]*http\.port[\s\S]*scheduler\.misfire_threshold[\s\S]*sinks\.command\.enabled/);
  });

  it('should apply limits.min_interval to every plan', () => {
    const config = buildConfig({ limits: { min_interval: '5m' } }, {});
    expect(config.plans.self_hosted.min_interval_ms).toBe(300_000);
    expect(config.plans.free.min_interval_ms).toBe(300_000);
  });

  describe('secrets.encryption_key', () => {
    const hex = 'ab'.repeat(32);
    const b64 = Buffer.alloc(32, 7).toString('base64');

    it('should be null by default and read SECRETS_ENCRYPTION_KEY over the file', () => {
      expect(buildConfig({}, {}).secrets.encryption_key).toBeNull();
      expect(buildConfig({ secrets: { encryption_key: hex } }, {}).secrets.encryption_key).toBe(hex);
      expect(
        buildConfig({ secrets: { encryption_key: hex } }, { SECRETS_ENCRYPTION_KEY: b64 }).secrets.encryption_key,
      ).toBe(b64);
    });

    it('should refuse a key that is not 32 bytes in hex or base64, without repeating it', () => {
      let message = '';
      try {
        buildConfig({}, { SECRETS_ENCRYPTION_KEY: 'my-password-123' });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('secrets.encryption_key: expected 32 bytes');
      expect(message).not.toContain('my-password-123');
    });
  });

  describe('runs (response bodies)', () => {
    it('should keep success bodies off and bodies 7 days by default, both settable from the environment', () => {
      expect(buildConfig({}, {}).runs).toEqual({
        store_success_bodies: false,
        body_retention_ms: 7 * 86_400_000,
        retention_ms: 30 * 86_400_000,
      });
      expect(buildConfig({}, { RUNS_STORE_SUCCESS_BODIES: 'true', RUNS_BODY_RETENTION: '2d' }).runs).toEqual({
        store_success_bodies: true,
        body_retention_ms: 2 * 86_400_000,
        retention_ms: 30 * 86_400_000,
      });
    });

    it('should refuse a body retention shorter than an hour', () => {
      expect(() => buildConfig({ runs: { body_retention: '5m' } }, {})).toThrow(
        /runs\.body_retention: expected at least 1h/,
      );
    });
  });

  describe('runs.retention', () => {
    it('should keep runs 30 days by default and accept a duration from RUNS_RETENTION', () => {
      expect(buildConfig({}, {}).runs.retention_ms).toBe(30 * 86_400_000);
      expect(buildConfig({ runs: { retention: '90d' } }, {}).runs.retention_ms).toBe(90 * 86_400_000);
      expect(buildConfig({ runs: { retention: '90d' } }, { RUNS_RETENTION: '14d' }).runs.retention_ms).toBe(
        14 * 86_400_000,
      );
    });

    it('should let a plan keep runs for its own time, other plans following runs.retention', () => {
      const config = buildConfig(
        { runs: { retention: '60d' }, plans: { free: { run_retention: '7d' }, pro: { max_jobs_per_workspace: 100 } } },
        {},
      );
      expect(config.plans.free.run_retention_ms).toBe(7 * 86_400_000);
      expect(config.plans.pro.run_retention_ms).toBeNull();
      expect(config.plans.self_hosted.run_retention_ms).toBeNull();
      expect(config.runs.retention_ms).toBe(60 * 86_400_000);
    });

    it('should refuse a run retention shorter than a day, for the service or a plan', () => {
      expect(() => buildConfig({ runs: { retention: '12h' } }, {})).toThrow(/runs\.retention: expected at least 1d/);
      expect(() => buildConfig({ plans: { free: { run_retention: '1h' } } }, {})).toThrow(
        /plans\.free\.run_retention: expected at least 1d/,
      );
      expect(() => buildConfig({ plans: { free: { run_retention: 'soon' } } }, {})).toThrow(
        /plans\.free\.run_retention: expected a duration/,
      );
    });
  });

  describe('audit.retention', () => {
    it('should default to 30 days and accept a duration from AUDIT_RETENTION', () => {
      expect(buildConfig({}, {}).audit.retention_ms).toBe(30 * 86_400_000);
      expect(buildConfig({}, { AUDIT_RETENTION: '90d' }).audit.retention_ms).toBe(90 * 86_400_000);
    });

    it('should refuse a retention shorter than an hour or not a duration', () => {
      expect(() => buildConfig({ audit: { retention: '10m' } }, {})).toThrow(/audit\.retention: expected at least 1h/);
      expect(() => buildConfig({ audit: { retention: 'forever' } }, {})).toThrow(/audit\.retention/);
    });
  });

  describe('log.level', () => {
    it('should default to info and read LOG_LEVEL over the file, in any case', () => {
      expect(buildConfig({}, {}).log.level).toBe('info');
      expect(buildConfig({ log: { level: 'warn' } }, {}).log.level).toBe('warn');
      expect(buildConfig({ log: { level: 'warn' } }, { LOG_LEVEL: 'DEBUG' }).log.level).toBe('debug');
      expect(buildConfig({}, { LOG_LEVEL: 'silent' }).log.level).toBe('silent');
    });

    it('should refuse a level pino does not know', () => {
      expect(() => buildConfig({}, { LOG_LEVEL: 'verbose' })).toThrow(/log\.level: expected one of fatal, error/);
    });
  });

  describe('tracing (OpenTelemetry)', () => {
    const enabled = (env: Record<string, string>, file: Record<string, unknown> = {}) =>
      buildConfig(file, env).tracing.enabled;

    it('should be off without OTEL_* exporter variables', () => {
      expect(enabled({})).toBe(false);
      expect(enabled({ OTEL_SERVICE_NAME: 'svc' })).toBe(false);
    });

    it('should turn on when an exporter or an OTLP endpoint is named', () => {
      expect(enabled({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
      expect(enabled({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
      expect(enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
      expect(enabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    });

    it('should stay off with OTEL_TRACES_EXPORTER=none even beside an endpoint', () => {
      expect(enabled({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(
        false,
      );
    });

    it('should let OTEL_SDK_DISABLED=true win over everything, the YAML key included', () => {
      expect(enabled({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
      expect(enabled({ OTEL_SDK_DISABLED: 'true' }, { tracing: { enabled: true } })).toBe(false);
      expect(enabled({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' })).toBe(true);
    });

    it('should let tracing.enabled in the file force it either way', () => {
      expect(enabled({}, { tracing: { enabled: true } })).toBe(true);
      expect(enabled({ OTEL_TRACES_EXPORTER: 'otlp' }, { tracing: { enabled: false } })).toBe(false);
    });
  });
});
