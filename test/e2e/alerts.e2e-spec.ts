import { alertEventId } from '@svc/common/alert-events';
import { createApp } from '../../apps/api/src/app';
import { Webhook } from 'standardwebhooks';
import { type ReceivedRequest, waitFor } from '../utils/receiver';
import { apiClient, useStackAndAlertChannels } from '../utils/stack';

const UI_URL = 'http://temporal-ui.test:8233';

/**
 * Alerts (issue #10; decisions.md → Alert channels, Alert rules; docs/alerts.md): channels and
 * rules through the API, email confirmation with signed links against a real SMTP server, and a
 * failing job's run.failed and job.auto_disabled alerts arriving as an email, a Standard-Webhooks
 * signed webhook and a Slack payload, with the rule's cooldown holding back the repeats.
 */
describe('alerts', () => {
  const e2e = useStackAndAlertChannels({
    from: 'Scheduler alerts <alerts@svc.test>',
    config: { alerts: { sweep_interval: '500ms' }, temporal: { ui_url: UI_URL } },
  });

  /** The confirmation link mailed to `address` (the n-th mail to it). */
  async function confirmationLink(address: string, n = 1): Promise<string> {
    const mail = await waitFor(() => e2e.smtp.to(address)[n - 1]);
    const link = /https?:\/\/\S+\/api\/v1\/alert-channels\/verify\?token=[\w.%-]+/.exec(mail.parsed.text ?? '');
    expect(link).not.toBeNull();
    return link![0];
  }

  async function emailChannel(address: string, verify = true) {
    const created = await e2e.api('POST', '/api/v1/alert-channels', {
      name: `mail ${address}`,
      kind: 'email',
      config: { address },
    });
    expect(created.status).toBe(201);
    if (verify) {
      const link = await confirmationLink(address);
      const followed = await fetch(e2e.onApi(link));
      expect(followed.status).toBe(200);
    }
    return created.body as { id: string; verified: boolean };
  }

  describe('alert channels', () => {
    it('should create each kind with the decided shape, the webhook secret once, and audit it', async () => {
      const webhook = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'ops hook',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/alerts` },
      });
      expect(webhook.status).toBe(201);
      expect(webhook.body).toEqual({
        id: expect.stringMatching(/^ch_[0-9A-HJKMNP-TV-Z]{26}$/),
        name: 'ops hook',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/alerts` },
        verified: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        signing_secret: expect.stringMatching(/^whsec_/),
      });
      const fetched = await e2e.api('GET', `/api/v1/alert-channels/${webhook.body.id}`);
      expect(fetched.body).not.toHaveProperty('signing_secret');
      expect(JSON.stringify(fetched.body)).not.toContain(webhook.body.signing_secret);

      const slackChannel = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'slack',
        kind: 'slack',
        config: { webhook_url: `${e2e.slack.url}/services/T000/B000/secret-token` },
      });
      expect(slackChannel.status).toBe(201);
      // The incoming-webhook URL is a credential: shown up to its first path segment only.
      expect(slackChannel.body.config).toEqual({ webhook_url: `${e2e.slack.url}/services/…` });
      expect(slackChannel.body.verified).toBe(true);

      const audit = await e2e.api('GET', `/api/v1/audit-log?action=alert_channel.create&target=${webhook.body.id}`);
      expect(audit.body.data).toEqual([
        expect.objectContaining({
          actor: expect.stringMatching(/^key:/),
          details: { name: 'ops hook', kind: 'webhook' },
        }),
      ]);
      expect(JSON.stringify(audit.body)).not.toContain('whsec_');

      const list = await e2e.api('GET', '/api/v1/alert-channels?limit=1');
      expect(list.body.data).toHaveLength(1);
      expect(list.body.next_cursor).toEqual(expect.any(String));
      const next = await e2e.api(
        'GET',
        `/api/v1/alert-channels?limit=1&cursor=${encodeURIComponent(list.body.next_cursor)}`,
      );
      expect(next.body.data[0].id).not.toBe(list.body.data[0].id);
    });

    it('should answer 400 validation_failed naming the field, never a 500', async () => {
      const cases: Array<[unknown, string]> = [
        [{ name: 'x', kind: 'email', config: { address: 'not-an-address' } }, 'config.address'],
        [{ name: 'x', kind: 'email', config: { address: 'a@b.co', extra: 1 } }, 'config.extra'],
        [{ name: 'x', kind: 'webhook', config: { url: 'ftp://example.com' } }, 'config.url'],
        [{ name: 'x', kind: 'slack', config: {} }, 'config.webhook_url'],
        [{ name: 'x', kind: 'pager', config: {} }, 'kind'],
        [{ name: 'x', kind: 'email', config: [] }, 'config'],
        [{ kind: 'email', config: { address: 'a@b.co' } }, 'name'],
      ];
      for (const [body, field] of cases) {
        const res = await e2e.api('POST', '/api/v1/alert-channels', body);
        expect([res.status, res.body.error.code, Object.keys(res.body.error.fields)]).toEqual([
          400,
          'validation_failed',
          expect.arrayContaining([field]),
        ]);
      }
    });

    it('should keep workspaces apart and need a full-access key', async () => {
      const channel = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'h',
        kind: 'webhook',
        config: { url: e2e.hook.url },
      });
      const other = await e2e.stack.newWorkspaceKey('alerts-other');
      const otherApi = apiClient(e2e.stack.baseUrl, other.apiKey);
      expect((await otherApi('GET', `/api/v1/alert-channels/${channel.body.id}`)).status).toBe(404);
      expect((await otherApi('POST', `/api/v1/alert-channels/${channel.body.id}/test`)).status).toBe(404);
      expect((await otherApi('GET', '/api/v1/alert-channels')).body.data).toEqual([]);
      const scoped = await e2e.api('POST', '/api/v1/api-keys', { name: 'reader', scopes: ['jobs:read', 'runs:read'] });
      const reader = apiClient(e2e.stack.baseUrl, scoped.body.key);
      expect((await reader('GET', '/api/v1/alert-channels')).status).toBe(403);
      expect((await reader('GET', '/api/v1/alert-rules')).status).toBe(403);
      expect((await apiClient(e2e.stack.baseUrl)('GET', '/api/v1/alert-channels')).status).toBe(401);
      expect((await e2e.api('GET', '/api/v1/alert-channels/ch_nope')).status).toBe(404);
    });

    it('should send a signed test alert to a webhook channel and say when a channel cannot be reached', async () => {
      const created = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'test hook',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/test` },
      });
      const tested = await e2e.api('POST', `/api/v1/alert-channels/${created.body.id}/test`);
      expect(tested).toMatchObject({ status: 200, body: { delivered: true, error: null } });
      const request = e2e.hook.requests.find((r) => r.url === '/test')!;
      const payload = new Webhook(created.body.signing_secret).verify(
        request.body,
        request.headers as Record<string, string>,
      );
      expect(payload).toMatchObject({ type: 'alert.test', data: { title: expect.stringContaining('test hook') } });

      e2e.hook.respondWith((r) => (r.url === '/down' ? { status: 503, body: 'maintenance' } : { status: 200 }));
      const down = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'down',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/down` },
      });
      const failed = await e2e.api('POST', `/api/v1/alert-channels/${down.body.id}/test`);
      expect(failed.body).toEqual({ delivered: false, error: 'HTTP 503: maintenance' });
      e2e.hook.respondWith(() => ({ status: 200 }));
    });
  });

  describe('email verification', () => {
    it('should mail a signed link, send unverified addresses nothing else, and verify through the link', async () => {
      const address = 'verify-me@example.test';
      const channel = await emailChannel(address, false);
      expect(channel.verified).toBe(false);
      const link = await confirmationLink(address);
      const mail = e2e.smtp.to(address)[0];
      expect(mail.parsed.subject).toContain('Confirm alert emails');
      expect(mail.parsed.from?.text).toContain('alerts@svc.test');

      // Not verified yet: a test alert is not sent, and says why.
      const early = await e2e.api('POST', `/api/v1/alert-channels/${channel.id}/test`);
      expect(early.body).toEqual({ delivered: false, error: expect.stringContaining('not verified') });

      // A tampered token proves nothing.
      const tampered = await fetch(`${e2e.onApi(link)}x`);
      expect(tampered.status).toBe(400);
      expect(((await tampered.json()) as any).error).toMatchObject({
        code: 'validation_failed',
        fields: { token: expect.any(String) },
      });

      const tamperedInBrowser = await fetch(`${e2e.onApi(link)}x`, { headers: { accept: 'text/html' } });
      expect(tamperedInBrowser.status).toBe(400);
      expect(await tamperedInBrowser.text()).toContain('not a valid confirmation link');

      const followed = await fetch(e2e.onApi(link));
      expect(followed.status).toBe(200);
      expect(await followed.json()).toEqual({ verified: true, channel_id: channel.id, address });
      const asBrowser = await fetch(e2e.onApi(link), {
        headers: { accept: 'text/html' },
      });
      expect(asBrowser.headers.get('content-type')).toContain('text/html');
      expect(await asBrowser.text()).toContain('Address confirmed');
      expect((await e2e.api('GET', `/api/v1/alert-channels/${channel.id}`)).body.verified).toBe(true);

      expect(e2e.smtp.to(address)).toHaveLength(1);
      const tested = await e2e.api('POST', `/api/v1/alert-channels/${channel.id}/test`);
      expect(tested.body).toEqual({ delivered: true, error: null });
      const testMail = e2e.smtp.to(address)[1];
      expect(testMail.parsed.subject).toContain('Test alert');

      // Resending is for unverified addresses only.
      const again = await e2e.api('POST', `/api/v1/alert-channels/${channel.id}/verify`);
      expect(again.status).toBe(409);
    });

    it('should unverify a changed address, resend at most once a minute, and refuse old links', async () => {
      const channel = await emailChannel('old@example.test');
      const oldLink = await confirmationLink('old@example.test');
      const patched = await e2e.api('PATCH', `/api/v1/alert-channels/${channel.id}`, {
        config: { address: 'new@example.test' },
      });
      expect(patched.body).toMatchObject({ verified: false, config: { address: 'new@example.test' } });
      await confirmationLink('new@example.test');
      // The link of the old address confirms nothing any more.
      expect((await fetch(e2e.onApi(oldLink))).status).toBe(404);
      const resent = await e2e.api('POST', `/api/v1/alert-channels/${channel.id}/verify`);
      expect(resent.status).toBe(429);
      expect(resent.body.error.code).toBe('rate_limited');
    });
  });

  describe('a server without SMTP (the self-hosted default)', () => {
    it('should create email channels, and answer test and verify with the missing setting', async () => {
      const noSmtp = await createApp({
        config: { ...e2e.stack.config, smtp: { ...e2e.stack.config.smtp, host: null, from: null } },
        logLevels: ['error'],
      });
      await noSmtp.listen(0, '127.0.0.1');
      try {
        const plain = apiClient((await noSmtp.getUrl()).replace('[::1]', '127.0.0.1'), e2e.stack.apiKey);
        const before = e2e.smtp.mails.length;
        const created = await plain('POST', '/api/v1/alert-channels', {
          name: 'no smtp',
          kind: 'email',
          config: { address: 'unmailed@example.test' },
        });
        expect(created).toMatchObject({ status: 201, body: { verified: false } });
        const tested = await plain('POST', `/api/v1/alert-channels/${created.body.id}/test`);
        expect(tested).toMatchObject({
          status: 200,
          body: {
            delivered: false,
            error:
              'email is not configured on this server: set smtp.host (SMTP_HOST) and smtp.from (SMTP_FROM); see docs/alerts.md',
          },
        });
        const resend = await plain('POST', `/api/v1/alert-channels/${created.body.id}/verify`);
        expect(resend.status).toBe(409);
        expect(resend.body.error.message).toContain('smtp.host (SMTP_HOST)');
        expect(e2e.smtp.mails.length).toBe(before);
      } finally {
        await noSmtp.close();
      }
    });
  });

  describe('alert rules', () => {
    it('should validate references, default the cooldown, and audit changes', async () => {
      const channel = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'r',
        kind: 'webhook',
        config: { url: e2e.hook.url },
      });
      const bad = await e2e.api('POST', '/api/v1/alert-rules', {
        name: 'bad',
        channel_ids: ['ch_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
        events: ['run.failed', 'run.exploded'],
        job_ids: ['job_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.error.fields)).toEqual(expect.arrayContaining(['events']));
      const unknown = await e2e.api('POST', '/api/v1/alert-rules', {
        name: 'unknown refs',
        channel_ids: ['ch_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
        events: ['run.failed'],
        job_ids: ['job_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      });
      expect(unknown.body.error.fields).toEqual({
        channel_ids: expect.stringContaining('ch_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
        job_ids: expect.stringContaining('job_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      });
      const created = await e2e.api('POST', '/api/v1/alert-rules', {
        name: 'all failures',
        channel_ids: [channel.body.id],
        events: ['run.failed'],
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^rule_/),
        name: 'all failures',
        enabled: true,
        channel_ids: [channel.body.id],
        events: ['run.failed'],
        job_ids: null,
        tags: null,
        cooldown: '15m',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const patched = await e2e.api('PATCH', `/api/v1/alert-rules/${created.body.id}`, {
        enabled: false,
        cooldown: '1h30m',
        tags: ['prod'],
      });
      expect(patched.body).toMatchObject({ enabled: false, cooldown: '1h30m', tags: ['prod'] });
      // null resets the cooldown to its default (it was a 500: found by Schemathesis through the links).
      const reset = await e2e.api('PATCH', `/api/v1/alert-rules/${created.body.id}`, { cooldown: null });
      expect({ status: reset.status, cooldown: reset.body.cooldown }).toEqual({ status: 200, cooldown: '15m' });
      // Deleting the channel takes it out of the rule.
      expect((await e2e.api('DELETE', `/api/v1/alert-channels/${channel.body.id}`)).status).toBe(204);
      expect((await e2e.api('GET', `/api/v1/alert-rules/${created.body.id}`)).body.channel_ids).toEqual([]);
      expect((await e2e.api('DELETE', `/api/v1/alert-rules/${created.body.id}`)).status).toBe(204);
      expect((await e2e.api('GET', `/api/v1/alert-rules/${created.body.id}`)).status).toBe(404);
      const audit = await e2e.api('GET', `/api/v1/audit-log?target=${created.body.id}`);
      expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual([
        'alert_rule.delete',
        'alert_rule.update',
        'alert_rule.update',
        'alert_rule.create',
      ]);
    });
  });

  describe('a failing job', () => {
    it('should alert run.failed and job.auto_disabled once each to email, signed webhook and Slack, the cooldown holding back the repeat', async () => {
      const email = await emailChannel('oncall@example.test');
      const unverified = await emailChannel('nobody-confirmed@example.test', false);
      const webhook = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'hook',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/failing` },
      });
      const slackChannel = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'slack',
        kind: 'slack',
        config: { webhook_url: `${e2e.slack.url}/services/failing` },
      });
      e2e.target.respondWith(() => ({ status: 500, body: 'database is down' }));
      const job = await e2e.api('POST', '/api/v1/jobs', {
        name: 'nightly-report',
        schedule: { expr: 'every 2 seconds', timezone: 'Europe/Berlin' },
        sink: { kind: 'webhook', config: { url: `${e2e.target.url}/job` } },
        retry: { max_attempts: 1 },
        auto_disable_threshold: 2,
      });
      expect(job.status).toBe(201);
      const jobId: string = job.body.id;
      const rule = await e2e.api('POST', '/api/v1/alert-rules', {
        name: 'nightly failures',
        channel_ids: [email.id, unverified.id, webhook.body.id, slackChannel.body.id],
        events: ['run.failed', 'job.auto_disabled'],
        job_ids: [jobId],
        cooldown: '1h',
      });
      expect(rule.status).toBe(201);

      const fromHook = (type: string) =>
        e2e.hook.requests.filter((r) => r.url === '/failing' && r.headers['svc-event-type'] === type);
      const fromSlack = (type: string) =>
        e2e.slack.requests.filter((r) => r.url === '/services/failing' && r.headers['svc-event-type'] === type);
      const mails = (type: string) =>
        e2e.smtp.to('oncall@example.test').filter((m) => m.header('svc-event-type') === type);
      await waitFor(
        () =>
          ['run.failed', 'job.auto_disabled'].every(
            (t) => fromHook(t).length && fromSlack(t).length && mails(t).length,
          ),
        60_000,
      );
      expect((await e2e.api('GET', `/api/v1/jobs/${jobId}`)).body).toMatchObject({ state: 'disabled' });

      const runs = (await e2e.api('GET', `/api/v1/jobs/${jobId}/runs`)).body.data as Array<{
        id: string;
        scheduled_at: string;
      }>;
      expect(runs).toHaveLength(2);
      const [second, first] = runs;
      const failedId = alertEventId('run.failed', first.id);
      const disabledId = alertEventId('job.auto_disabled', second.id);

      // Webhook: Standard Webhooks, signed with the channel's own secret; webhook-id = event id.
      const signed = new Webhook(webhook.body.signing_secret);
      const failedHook = fromHook('run.failed')[0];
      expect(failedHook.headers['webhook-id']).toBe(failedId);
      const failedPayload = signed.verify(failedHook.body, failedHook.headers as Record<string, string>) as any;
      expect(failedPayload).toMatchObject({
        type: 'run.failed',
        data: {
          event_id: failedId,
          job: { id: jobId, name: 'nightly-report', timezone: 'Europe/Berlin' },
          run: { id: first.id, status: 'failed', attempts: 1, last_error: expect.stringContaining('500') },
          scheduled_at_local: expect.stringMatching(/ \+0[12]:00 \(Europe\/Berlin\)$/),
          links: {
            run: `${e2e.stack.config.public_url}/runs/${first.id}`,
            run_api: `${e2e.stack.config.public_url}/api/v1/runs/${first.id}`,
            temporal: `${UI_URL}/namespaces/default/workflows/${first.id}`,
          },
        },
      });
      const disabledHook = fromHook('job.auto_disabled')[0];
      expect(signed.verify(disabledHook.body, disabledHook.headers as Record<string, string>)).toMatchObject({
        type: 'job.auto_disabled',
        data: {
          event_id: disabledId,
          consecutive_failures: 2,
          disabled_reason: 'auto_disabled: 2 consecutive failed runs',
        },
      });

      // Slack: Block Kit with the job, the run, the error and links to the dashboard and Temporal.
      const slackBody = JSON.parse(fromSlack('run.failed')[0].body) as { text: string; blocks: unknown[] };
      expect(slackBody.text).toBe('Job "nightly-report" failed');
      const blocks = JSON.stringify(slackBody.blocks);
      for (const part of [
        'nightly-report',
        first.id,
        '500',
        '(Europe/Berlin)',
        `${UI_URL}/namespaces/default/workflows/${first.id}`,
        `/runs/${first.id}|`,
      ]) {
        expect(blocks).toContain(part);
      }

      // Email: what happened, when in the job's zone, the error, attempts and links.
      const mail = mails('run.failed')[0];
      expect(mail.header('svc-event-id')).toBe(failedId);
      expect(mail.parsed.subject).toBe('[svc-scheduler] Job "nightly-report" failed');
      for (const line of [
        `Job: nightly-report (${jobId})`,
        'Last error: ',
        'Attempts: 1',
        `Workflow in Temporal: ${UI_URL}/namespaces/default/workflows/${first.id}`,
        `Run in the dashboard: ${e2e.stack.config.public_url}/runs/${first.id}`,
      ]) {
        expect(mail.parsed.text).toContain(line);
      }
      expect(mail.parsed.text).toMatch(/Occurrence: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0[12]:00 \(Europe\/Berlin\)/);
      expect(mails('job.auto_disabled')[0].parsed.text).toContain('POST /api/v1/jobs/');

      // Cooldown (1h per rule, job and type): the second failure was recorded, and sent nowhere.
      const secondFailed = alertEventId('run.failed', second.id);
      const deliveries = (id: string) =>
        e2e.stack.dataSource.query(
          `SELECT channel_id, status FROM alert_deliveries WHERE event_id = $1 ORDER BY channel_id`,
          [id],
        );
      const recorded = await e2e.stack.dataSource.query(`SELECT id, planned_at FROM alert_events WHERE id = $1`, [
        secondFailed,
      ]);
      expect(recorded).toEqual([{ id: secondFailed, planned_at: expect.any(Date) }]);
      expect(await deliveries(secondFailed)).toEqual([]);
      // Each alert once per channel; the unverified address got its confirmation and nothing else.
      expect(await deliveries(failedId)).toEqual(
        [email.id, webhook.body.id, slackChannel.body.id].sort().map((id) => ({ channel_id: id, status: 'sent' })),
      );
      for (const type of ['run.failed', 'job.auto_disabled']) {
        expect([fromHook(type).length, fromSlack(type).length, mails(type).length]).toEqual([1, 1, 1]);
      }
      expect(e2e.smtp.to('nobody-confirmed@example.test')).toHaveLength(1);
      expect(e2e.smtp.to('nobody-confirmed@example.test')[0].parsed.subject).toContain('Confirm');
    });

    it('should give up at once on a channel that refuses an alert, and keep sending to the others', async () => {
      e2e.hook.respondWith((r) => (r.url === '/refuse' ? { status: 410, body: 'gone' } : { status: 200 }));
      const refusing = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'refuses',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/refuse` },
      });
      const working = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'works',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/works` },
      });
      e2e.target.respondWith(() => ({ status: 500 }));
      const job = await e2e.api('POST', '/api/v1/jobs', {
        name: 'refused-alert',
        schedule: { expr: 'every 1 hour' },
        sink: { kind: 'webhook', config: { url: `${e2e.target.url}/refused` } },
        retry: { max_attempts: 1 },
      });
      await e2e.api('POST', '/api/v1/alert-rules', {
        name: 'refused',
        channel_ids: [refusing.body.id, working.body.id],
        events: ['run.failed'],
        job_ids: [job.body.id],
      });
      const runId: string = (await e2e.api('POST', `/api/v1/jobs/${job.body.id}/trigger`)).body.run_id;
      const eventId = alertEventId('run.failed', runId);
      const rows = await waitFor(async () => {
        const found: Array<{ channel_id: string; status: string; attempts: number; last_error: string | null }> =
          await e2e.stack.dataSource.query(
            `SELECT channel_id, status, attempts, last_error FROM alert_deliveries WHERE event_id = $1`,
            [eventId],
          );
        return found.length === 2 && found.every((r) => r.status !== 'pending') ? found : null;
      }, 30_000);
      const byChannel = Object.fromEntries(rows.map((r) => [r.channel_id, r]));
      // 410 is not a failure that passes: one try, then `failed` with the answer.
      expect(byChannel[refusing.body.id]).toEqual({
        channel_id: refusing.body.id,
        status: 'failed',
        attempts: 1,
        last_error: 'HTTP 410: gone',
      });
      expect(byChannel[working.body.id]).toMatchObject({ status: 'sent', attempts: 1 });
      expect(e2e.hook.requests.filter((r) => r.url === '/refuse' && r.headers['webhook-id'] === eventId)).toHaveLength(
        1,
      );
      e2e.hook.respondWith(() => ({ status: 200 }));
    });

    it('should alert an SLA breach while the run is still running, and the recovery after failures', async () => {
      const webhook = await e2e.api('POST', '/api/v1/alert-channels', {
        name: 'sla',
        kind: 'webhook',
        config: { url: `${e2e.hook.url}/sla` },
      });
      let calls = 0;
      e2e.target.respondWith((request: ReceivedRequest) => {
        if (!request.url.startsWith('/slow')) {
          return { status: 500 };
        }
        calls += 1;
        // First occurrence fails; the second is slow (past its 1 s SLA) and succeeds: a recovery.
        return calls === 1 ? { status: 500, body: 'first fails' } : { status: 200, delayMs: 4_000 };
      });
      const job = await e2e.api('POST', '/api/v1/jobs', {
        name: 'slow-sync',
        schedule: { expr: 'every 1 hour', timezone: 'Asia/Tokyo' },
        sink: { kind: 'webhook', config: { url: `${e2e.target.url}/slow` } },
        retry: { max_attempts: 1 },
        sla_threshold: '1s',
        timeout: '30s',
      });
      const jobId: string = job.body.id;
      await e2e.api('POST', '/api/v1/alert-rules', {
        name: 'sla and recovery',
        channel_ids: [webhook.body.id],
        events: ['run.sla_breached', 'job.recovered'],
        job_ids: [jobId],
        cooldown: '0s',
      });
      const firstRun = await e2e.api('POST', `/api/v1/jobs/${jobId}/trigger`);
      await waitFor(
        async () => (await e2e.api('GET', `/api/v1/runs/${firstRun.body.run_id}`)).body.status === 'failed',
      );
      const slow = await e2e.api('POST', `/api/v1/jobs/${jobId}/trigger`);
      const slowRunId: string = slow.body.run_id;
      const sla = await waitFor(
        () => e2e.hook.requests.find((r) => r.url === '/sla' && r.headers['svc-event-type'] === 'run.sla_breached'),
        30_000,
      );
      const breach = JSON.parse(sla.body);
      expect(breach).toMatchObject({
        type: 'run.sla_breached',
        data: { still_running: true, sla_threshold_ms: 1000, run: { id: slowRunId }, job: { timezone: 'Asia/Tokyo' } },
      });
      expect(breach.data.title).toContain('has not finished within 1s');
      // Still running when the alert went out.
      const during = await e2e.api('GET', `/api/v1/runs/${slowRunId}`);
      expect(during.body).toMatchObject({ status: 'running', sla_breached: true });

      const recovered = await waitFor(
        () => e2e.hook.requests.find((r) => r.url === '/sla' && r.headers['svc-event-type'] === 'job.recovered'),
        30_000,
      );
      expect(JSON.parse(recovered.body)).toMatchObject({
        type: 'job.recovered',
        data: { previous_failures: 1, run: { id: slowRunId, status: 'succeeded' } },
      });
      // The breach found while running is the run's one breach: closing it late (in the transaction
      // that recorded the recovery) found the same event id and recorded nothing more.
      const breaches = await e2e.stack.dataSource.query(
        `SELECT id FROM alert_events WHERE run_id = $1 AND type = 'run.sla_breached'`,
        [slowRunId],
      );
      expect(breaches).toEqual([{ id: alertEventId('run.sla_breached', slowRunId) }]);
      expect((await e2e.api('GET', `/api/v1/runs/${slowRunId}`)).body).toMatchObject({
        status: 'succeeded',
        sla_breached: true,
      });
    });
  });
});
