import { alertEventId } from '@svc/common/alert-events';
import { Webhook } from 'standardwebhooks';
import { type ReceivedRequest, waitFor } from '../utils/receiver';
import { useStackAndAlertChannels } from '../utils/stack';

/**
 * Durable alerts (issue #10; docs/alerts.md → Delivery): the worker runs as its own OS process
 * (the built dist/) and is killed with SIGKILL while an alert is on the wire to every channel
 * (the receivers hold their answer). After a restart each alert still reaches each channel; a
 * copy sent twice carries the same event id (`webhook-id` / `Svc-Event-Id` / Message-ID), and
 * every delivery ends `sent` exactly once in the database.
 */
describe('alerts across a worker crash', () => {
  const e2e = useStackAndAlertChannels({
    worker: false,
    from: 'alerts@svc.test',
    config: { alerts: { sweep_interval: '1s' } },
  });

  it('should send each alert to each channel, copies only with the same event id', async () => {
    const { stack, api, smtp, target, hook, slack, onApi } = e2e;
    const first = await stack.spawnWorker();

    const email = await api('POST', '/api/v1/alert-channels', {
      name: 'oncall',
      kind: 'email',
      config: { address: 'oncall@example.test' },
    });
    const confirmation = await waitFor(() => smtp.to('oncall@example.test')[0], 30_000);
    const link = /https?:\/\/\S+\/api\/v1\/alert-channels\/verify\?token=[\w.%-]+/.exec(
      confirmation.parsed.text ?? '',
    )![0];
    expect((await fetch(onApi(link))).status).toBe(200);
    const webhook = await api('POST', '/api/v1/alert-channels', {
      name: 'hook',
      kind: 'webhook',
      config: { url: hook.url },
    });
    const slackChannel = await api('POST', '/api/v1/alert-channels', {
      name: 'slack',
      kind: 'slack',
      config: { webhook_url: `${slack.url}/services/x` },
    });
    target.respondWith(() => ({ status: 500, body: 'down' }));
    const job = await api('POST', '/api/v1/jobs', {
      name: 'crash-test',
      schedule: { expr: 'every 1 hour' },
      sink: { kind: 'webhook', config: { url: target.url } },
      retry: { max_attempts: 1 },
      auto_disable_threshold: 0,
    });
    await api('POST', '/api/v1/alert-rules', {
      name: 'every failure',
      channel_ids: [email.body.id, webhook.body.id, slackChannel.body.id],
      events: ['run.failed'],
      cooldown: '0s',
    });

    // The first alert is held on the wire at every channel: the receivers answer after 10 s.
    let holding = true;
    const hold = (r: ReceivedRequest) =>
      r.headers['svc-event-id'] && holding ? { status: 200, delayMs: 10_000 } : { status: 200 };
    hook.respondWith(hold);
    slack.respondWith(hold);
    const mailsBefore = smtp.dataReceived;
    smtp.holdWith(() => (holding ? 10_000 : 0));

    const run1 = (await api('POST', `/api/v1/jobs/${job.body.id}/trigger`)).body.run_id as string;
    await waitFor(
      () => hook.requests.length >= 1 && slack.requests.length >= 1 && smtp.dataReceived > mailsBefore,
      30_000,
    );
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    holding = false;

    await stack.spawnWorker();
    const run2 = (await api('POST', `/api/v1/jobs/${job.body.id}/trigger`)).body.run_id as string;
    const expected = [alertEventId('run.failed', run1), alertEventId('run.failed', run2)].sort();

    const hookIds = () => new Set(hook.requests.map((r) => r.headers['webhook-id'] as string));
    const slackIds = () => new Set(slack.requests.map((r) => r.headers['svc-event-id'] as string));
    const mailIds = () =>
      new Set(
        smtp
          .to('oncall@example.test')
          .slice(1)
          .map((m) => m.header('svc-event-id')),
      );
    await waitFor(async () => {
      const rows: Array<{ status: string }> = await stack.dataSource.query(
        `SELECT status FROM alert_deliveries WHERE event_id = ANY($1::text[])`,
        [expected],
      );
      return (
        rows.length === 6 &&
        rows.every((r) => r.status === 'sent') &&
        hookIds().size === 2 &&
        slackIds().size === 2 &&
        mailIds().size === 2
      );
    }, 120_000);

    // The crash did land mid-send: the first alert reached the webhook again from the new worker.
    const firstId = alertEventId('run.failed', run1);
    expect(hook.requests.filter((r) => r.headers['webhook-id'] === firstId).length).toBeGreaterThanOrEqual(2);
    // Every channel got exactly these two alerts; any second copy has the event id of the first.
    expect([...hookIds()].sort()).toEqual(expected);
    expect([...slackIds()].sort()).toEqual(expected);
    expect([...mailIds()].sort()).toEqual(expected);
    for (const mail of smtp.to('oncall@example.test').slice(1)) {
      expect(mail.header('message-id')).toContain(`${mail.header('svc-event-id')}.${email.body.id}@svc.test`);
    }
    // The copy sent again after the crash is the same signed message id (receivers fold it).
    const signer = new Webhook(webhook.body.signing_secret);
    for (const request of hook.requests) {
      expect(signer.verify(request.body, request.headers as Record<string, string>)).toMatchObject({
        type: 'run.failed',
        data: { event_id: request.headers['webhook-id'] },
      });
    }
    // The crash cost a retry, never a second event: one row per occurrence and channel.
    const events: Array<{ id: string }> = await stack.dataSource.query(
      `SELECT id FROM alert_events WHERE job_id = $1 ORDER BY id`,
      [job.body.id],
    );
    expect(events.map((e) => e.id)).toEqual(expected);
  }, 240_000);
});
