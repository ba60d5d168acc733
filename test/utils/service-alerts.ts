import { Webhook } from 'standardwebhooks';
import type { ReceivedRequest, WebhookReceiver } from './receiver';
import type { ApiClient } from './stack';

/**
 * A webhook alert channel to `url` and a rule sending it the service events (`rule` adds to the
 * rule's body): both created (201); returns the channel's id and signing secret, and the created rule.
 */
export async function serviceAlertsChannel(
  api: ApiClient,
  url: string,
  rule: Record<string, unknown> = {},
): Promise<{ channelId: string; secret: string; rule: any }> {
  const channel = await api('POST', '/api/v1/alert-channels', { name: 'ops', kind: 'webhook', config: { url } });
  expect(channel.status).toBe(201);
  const created = await api('POST', '/api/v1/alert-rules', {
    name: 'service',
    channel_ids: [channel.body.id],
    events: ['service.degraded', 'service.recovered'],
    ...rule,
  });
  expect(created.status).toBe(201);
  return { channelId: channel.body.id, secret: channel.body.signing_secret, rule: created.body };
}

/** The service alerts for `dependency` `receiver` got so far, each verified with the channel's `secret`. */
export function serviceAlertsReceived(
  receiver: WebhookReceiver,
  secret: string,
  dependency: string,
): Array<{ type: string; data: any; request: ReceivedRequest }> {
  const signed = new Webhook(secret);
  return receiver.requests
    .map((request) => ({
      request,
      payload: signed.verify(request.body, request.headers as Record<string, string>) as { type: string; data: any },
    }))
    .filter(({ payload }) => payload.data.service?.dependency === dependency)
    .map(({ payload, request }) => ({ type: payload.type, data: payload.data, request }));
}
