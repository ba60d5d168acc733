import { buildConfig } from './config';

describe('smtp and alerts configuration (docs/alerts.md)', () => {
  it('should leave email off by default, with the alert delivery defaults', () => {
    const config = buildConfig({}, {});
    expect(config.smtp).toEqual({ host: null, port: 587, tls: 'starttls', user: null, password: null, from: null });
    expect(config.alerts).toEqual({
      sweep_interval_ms: 5_000,
      max_concurrent_sends: 20,
      send_timeout_ms: 15_000,
      retention_ms: 30 * 86_400_000,
      service_degraded_after_ms: 30_000,
      service_lag_threshold_ms: 60_000,
      service_lag_after_ms: 300_000,
    });
  });

  it('should read SMTP from the environment over the file', () => {
    const config = buildConfig(
      { smtp: { host: 'file.example.com', from: 'a@file.example.com' } },
      {
        SMTP_HOST: 'smtp.example.com',
        SMTP_PORT: '465',
        SMTP_TLS: 'implicit',
        SMTP_USER: 'alerts',
        SMTP_PASSWORD: 'pw-1c9e',
        SMTP_FROM: 'Scheduler <alerts@example.com>',
        ALERTS_SWEEP_INTERVAL: '2s',
        ALERTS_SERVICE_DEGRADED_AFTER: '1m',
        ALERTS_SERVICE_LAG_THRESHOLD: '2m',
        ALERTS_SERVICE_LAG_AFTER: '10m',
      },
    );
    expect(config.smtp).toEqual({
      host: 'smtp.example.com',
      port: 465,
      tls: 'implicit',
      user: 'alerts',
      password: 'pw-1c9e',
      from: 'Scheduler <alerts@example.com>',
    });
    expect(config.alerts.sweep_interval_ms).toBe(2_000);
    expect(config.alerts.service_degraded_after_ms).toBe(60_000);
    expect(config.alerts.service_lag_threshold_ms).toBe(120_000);
    expect(config.alerts.service_lag_after_ms).toBe(600_000);
  });

  it('should refuse a host without a From address, an unknown TLS mode and a hurried sweep, never echoing the password', () => {
    let message = '';
    try {
      buildConfig(
        {
          smtp: { host: 'smtp.example.com', tls: 'ssl', password: 'pw-secret-77' },
          alerts: { sweep_interval: '10ms', service_degraded_after: '0s' },
        },
        {},
      );
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('smtp.from: required when smtp.host is set');
    expect(message).toContain('smtp.tls: expected one of starttls, implicit, none');
    expect(message).toContain('alerts.sweep_interval');
    expect(message).toContain('alerts.service_degraded_after: expected at least 1s');
    expect(message).not.toContain('pw-secret-77');
  });
});
