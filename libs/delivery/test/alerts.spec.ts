import type { AlertEventDetails } from '@svc/common/alert-events';
import { Webhook } from 'standardwebhooks';
import {
  alertLinks,
  AlertSender,
  composeAlert,
  emailContent,
  formatInZone,
  httpOutcome,
  signVerificationToken,
  slackPayload,
  smtpMissing,
  verificationKey,
  verifyVerificationToken,
  VERIFICATION_TOKEN_TTL_MS,
  webhookAlertBody,
} from '../src';

const details: AlertEventDetails = {
  job: { id: 'job_1', name: 'nightly <report> & co', timezone: 'America/New_York', tags: [] },
  run: {
    id: 'run_1',
    scheduled_at: '2026-07-01T13:00:00.000Z',
    trigger: 'schedule',
    status: 'failed',
    attempts: 3,
    last_error: 'HTTP 500 <html>',
    finished_at: '2026-07-01T13:00:05.000Z',
  },
  consecutive_failures: 4,
};
const settings = {
  public_url: 'https://svc.example.com/',
  temporal: { ui_url: 'https://temporal.example.com', namespace: 'prod' },
};

describe('alert content', () => {
  const links = alertLinks(settings, 'job_1', 'run_1');
  const message = composeAlert({ id: 'evt_1', type: 'run.failed', occurredAt: '2026-07-01T13:00:05Z', details }, links);

  it('should link the run in the dashboard, the API and the Temporal Web UI', () => {
    expect(links).toEqual({
      run: 'https://svc.example.com/runs/run_1',
      runApi: 'https://svc.example.com/api/v1/runs/run_1',
      temporal: 'https://temporal.example.com/namespaces/prod/workflows/run_1',
      job: 'https://svc.example.com/jobs/job_1',
    });
    expect(
      alertLinks({ ...settings, temporal: { ui_url: null, namespace: 'x' } }, 'job_1', 'run_1').temporal,
    ).toBeNull();
  });

  it('should say what happened, when in the job zone, the error and the attempts', () => {
    expect(message.title).toBe('Job "nightly <report> & co" failed');
    expect(Object.fromEntries(message.facts)).toMatchObject({
      Occurrence: '2026-07-01 09:00:00 -04:00 (America/New_York)',
      'Last error': 'HTTP 500 <html>',
      Attempts: '3',
      'Consecutive failures': '4',
    });
  });

  it('should write each event type for a person', () => {
    const of = (type: 'run.sla_breached' | 'job.auto_disabled' | 'job.recovered', extra: Partial<AlertEventDetails>) =>
      composeAlert({ id: 'e', type, occurredAt: new Date(0), details: { ...details, ...extra } }, links);
    expect(of('run.sla_breached', { sla_threshold_ms: 300_000, still_running: true }).title).toBe(
      'Job "nightly <report> & co" is late: its run has not finished within 5m',
    );
    const disabled = of('job.auto_disabled', { consecutive_failures: 10 });
    expect(disabled.title).toContain('disabled after 10 consecutive failed runs');
    expect(disabled.hint).toContain('/api/v1/jobs/job_1/enable');
    const recovered = of('job.recovered', { previous_failures: 1 });
    expect(recovered.title).toBe('Job "nightly <report> & co" recovered after 1 failed run');
    expect(Object.keys(Object.fromEntries(recovered.facts))).not.toContain('Last error');
  });

  it('should escape everything from the event in HTML mail and Slack mrkdwn', () => {
    const mail = emailContent(message, 'svc');
    expect(mail.subject).toBe('[svc] Job "nightly <report> & co" failed');
    expect(mail.html).toContain('nightly &lt;report&gt; &amp; co');
    expect(mail.html).not.toContain('<report>');
    expect(mail.text).toContain('Workflow in Temporal: https://temporal.example.com/namespaces/prod/workflows/run_1');
    const slack = JSON.stringify(slackPayload(message, 'svc').blocks);
    expect(slack).toContain('nightly &lt;report&gt; &amp; co');
    expect(slack).toContain('<https://svc.example.com/runs/run_1|Run in the dashboard>');
  });

  it('should give webhooks the Standard Webhooks shape with the snapshot and links', () => {
    const body = JSON.parse(
      webhookAlertBody(message, { id: 'evt_1', type: 'run.failed', occurredAt: new Date(0), details }),
    );
    expect(body).toMatchObject({
      type: 'run.failed',
      timestamp: '2026-07-01T13:00:05.000Z',
      data: {
        event_id: 'evt_1',
        job: details.job,
        run: details.run,
        consecutive_failures: 4,
        links: { run_api: links.runApi },
      },
    });
  });

  it('should fall back to UTC for a zone it cannot read', () => {
    expect(formatInZone('2026-01-01T00:00:00Z', 'Not/AZone')).toBe('2026-01-01T00:00:00.000Z (UTC)');
  });
});

describe('service alert content (docs/alerts.md → Service events)', () => {
  const service = (ended: string | null) => ({
    service: {
      dependency: 'postgres',
      cause: 'PostgreSQL: connect ECONNREFUSED 127.0.0.1:5432',
      began_at: '2026-11-28T10:00:00.000Z',
      degraded_at: '2026-11-28T10:00:30.000Z',
      ended_at: ended,
      duration_ms: ended ? new Date(ended).getTime() - Date.parse('2026-11-28T10:00:00.000Z') : null,
      observed_by: 'host-1:4242',
    },
  });
  const links = alertLinks(settings, null, null);

  it('should name the dependency, its cause and when it began; no job or run links', () => {
    const message = composeAlert(
      { id: 'evt_s', type: 'service.degraded', occurredAt: '2026-11-28T10:00:30Z', details: service(null) },
      links,
      'Scheduler',
    );
    expect(message.title).toBe('Scheduler degraded: PostgreSQL is unreachable');
    expect(Object.fromEntries(message.facts)).toEqual({
      Dependency: 'PostgreSQL',
      Cause: 'PostgreSQL: connect ECONNREFUSED 127.0.0.1:5432',
      Began: '2026-11-28T10:00:00.000Z',
      'Degraded since': '2026-11-28T10:00:30.000Z',
      'Seen by': 'host-1:4242',
    });
    expect(links).toEqual({ run: null, runApi: null, temporal: null, job: null });
    const body = JSON.parse(
      webhookAlertBody(message, {
        id: 'evt_s',
        type: 'service.degraded',
        occurredAt: '2026-11-28T10:00:30Z',
        details: service(null),
      }),
    );
    expect(body).toMatchObject({
      type: 'service.degraded',
      data: { service: { dependency: 'postgres', ended_at: null } },
    });
    expect(body.data).not.toHaveProperty('job');
  });

  it('should say how long it lasted when it recovered, and that a late degraded alert has ended', () => {
    const ended = '2026-11-28T10:03:00.000Z';
    const recovered = composeAlert(
      { id: 'evt_r', type: 'service.recovered', occurredAt: ended, details: service(ended) },
      links,
      'Scheduler',
    );
    expect(recovered.title).toBe('Scheduler recovered: PostgreSQL is reachable again after 3m');
    expect(Object.fromEntries(recovered.facts)).toMatchObject({ Ended: ended, Duration: '3m' });
    const late = composeAlert(
      { id: 'evt_l', type: 'service.degraded', occurredAt: '2026-11-28T10:00:30Z', details: service(ended) },
      links,
      'Scheduler',
    );
    expect(late.hint).toContain('It has ended');
    expect(emailContent(late, 'Scheduler').text).toContain(`Ended: ${ended}`);
  });
});

describe('verification tokens', () => {
  const key = verificationKey(Buffer.alloc(32, 7));
  const now = Date.parse('2026-01-01T00:00:00Z');
  const token = signVerificationToken(key, { channelId: 'ch_1', address: 'a@b.co' }, now);

  it('should round-trip within 24 hours', () => {
    expect(verifyVerificationToken(key, token, now + VERIFICATION_TOKEN_TTL_MS - 1000)).toMatchObject({
      ok: true,
      channelId: 'ch_1',
      address: 'a@b.co',
    });
  });

  it('should refuse an expired, tampered, foreign-key or malformed token', () => {
    expect(verifyVerificationToken(key, token, now + VERIFICATION_TOKEN_TTL_MS)).toEqual({
      ok: false,
      reason: 'expired',
    });
    const [v, payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ c: 'ch_2', a: 'evil@x.co', e: 9e9 })).toString('base64url');
    expect(verifyVerificationToken(key, `${v}.${forged}.${sig}`, now).ok).toBe(false);
    expect(verifyVerificationToken(verificationKey(Buffer.alloc(32, 8)), token, now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verifyVerificationToken(key, `${v}.${payload}`, now)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyVerificationToken(key, 'garbage', now)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('alert sending', () => {
  const result = (statusCode: number | null, extra: Record<string, unknown> = {}) =>
    httpOutcome({
      statusCode,
      headers: {},
      body: 'nope',
      bodyTruncated: false,
      durationMs: 1,
      requestSummary: '',
      redirects: 0,
      finalUrl: '',
      ...extra,
    });

  it('should retry 408, 429, 5xx and network trouble, and not 4xx or refused destinations', () => {
    expect(result(204)).toEqual({ delivered: true, error: null, permanent: false });
    expect(result(500)).toEqual({ delivered: false, error: 'HTTP 500: nope', permanent: false });
    expect(result(429).permanent).toBe(false);
    expect(result(404).permanent).toBe(true);
    expect(result(null, { error: 'ECONNREFUSED', errorKind: 'network' })).toMatchObject({ permanent: false });
    expect(result(null, { error: 'network_blocked', errorKind: 'destination_not_allowed' })).toMatchObject({
      permanent: true,
    });
  });

  it('should name the missing SMTP settings', () => {
    const smtp = { host: null, port: 587, tls: 'starttls' as const, user: null, password: null, from: null };
    expect(smtpMissing(smtp)).toBe(
      'email is not configured on this server: set smtp.host (SMTP_HOST) and smtp.from (SMTP_FROM); see docs/alerts.md',
    );
    expect(smtpMissing({ ...smtp, host: 'mail', from: 'a@b.co' })).toBeNull();
  });

  it('should sign webhook alerts with the channel secret (verified with standardwebhooks)', async () => {
    const { createServer } = await import('node:http');
    const received: Array<{ headers: Record<string, string>; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      const secret = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
      const sender = new AlertSender({
        serviceName: 'svc',
        version: '1',
        smtp: { host: null, port: 587, tls: 'starttls', user: null, password: null, from: null },
        rules: { mode: 'self_hosted', allowPrivateNetworks: true },
        timeoutMs: 5000,
      });
      const message = composeAlert(
        { id: 'evt_X', type: 'run.failed', occurredAt: new Date(0), details },
        alertLinks(settings, 'job_1', 'run_1'),
      );
      const sent = await sender.send(
        {
          id: 'ch_1',
          name: 'h',
          kind: 'webhook',
          config: { url: `http://127.0.0.1:${port}/a` },
          signingSecret: secret,
        },
        message,
        null,
        Date.now(),
      );
      expect(sent.delivered).toBe(true);
      expect(received[0].headers['webhook-id']).toBe('evt_X');
      expect(received[0].headers['svc-event-id']).toBe('evt_X');
      expect(new Webhook(secret).verify(received[0].body, received[0].headers)).toMatchObject({ type: 'run.failed' });
      // Email without SMTP: nothing is attempted, and the reason is permanent.
      const mail = await sender.send(
        { id: 'ch_2', name: 'm', kind: 'email', config: { address: 'a@b.co' }, signingSecret: null },
        message,
        null,
        0,
      );
      expect(mail).toEqual({ delivered: false, error: expect.stringContaining('smtp.host'), permanent: true });
    } finally {
      server.close();
    }
  });
});
