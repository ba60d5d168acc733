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
  });

  it('should refuse a host without a From address, an unknown TLS mode and a hurried sweep, never echoing the password', () => {
    let message = '';
    try {
      buildConfig(
        {
          smtp: { host: 'smtp.example.com', tls: 'ssl', password: 'pw-secret-77' },
          alerts: { sweep_interval: '10ms' },
        },
        {},
      );
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('smtp.from: required when smtp.host is set');
    expect(message).toContain('smtp.tls: expected one of starttls, implicit, none');
    expect(message).toContain('alerts.sweep_interval');
    expect(message).not.toContain('pw-secret-77');
  });
});
