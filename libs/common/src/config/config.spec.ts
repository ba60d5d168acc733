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

  it('should default a hosted server to the free plan and refuse private networks', () => {
    const config = buildConfig({ mode: 'hosted' }, {});
    expect(config.default_plan).toBe('free');
    expect(config.sinks.webhook.allow_private_networks).toBe(false);
    expect(config.plans.free).toMatchObject({ max_jobs_per_workspace: 20, min_interval_ms: 60_000 });
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
});
