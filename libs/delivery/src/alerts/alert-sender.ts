/**
 * Sends one alert through one channel (docs/alerts.md → Transports): email over SMTP with
 * nodemailer, webhooks signed with the channel's own `whsec_` secret (Standard Webhooks, like job
 * deliveries), Slack incoming webhooks with Block Kit. HTTP goes through the same guarded client
 * as job deliveries, so the server's network rules apply to alert URLs too. Used by the worker's
 * alert activities and by the API's channel test; never throws for a delivery failure: the result
 * says whether it went out, why not, and whether trying again can help. Within an active trace
 * (the `sendAlert` activity's span, the channel test's API request) an HTTP alert gets a CLIENT
 * span and carries its `traceparent`, exactly as a job's webhook does (`../tracing.ts`).
 */
import type { SmtpSettings } from '@svc/common/config';
import { createTransport } from 'nodemailer';
import { deliverHttp, type HttpDeliveryResult, type Resolver } from '../http-client';
import { type NetworkRules } from '../network-rules';
import { withClientSpan } from '../tracing';
import { signWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../signing';
import { type AlertEventView, type AlertMessage, emailContent, slackPayload, webhookAlertBody } from './content';

export const ALERT_CHANNEL_KINDS = ['email', 'webhook', 'slack'] as const;
export type AlertChannelKind = (typeof ALERT_CHANNEL_KINDS)[number];

/** SMTP settings (`smtp.*` in the configuration; README → Configuration). */
export type { SmtpSettings };

export interface AlertSenderSettings {
  serviceName: string;
  version: string;
  smtp: SmtpSettings;
  rules: NetworkRules;
  /** Per send: connect, TLS, request and response (HTTP), or the whole SMTP conversation. */
  timeoutMs: number;
}

/** A channel as sending needs it. */
export interface AlertChannelTarget {
  id: string;
  name: string;
  kind: string;
  config: Record<string, unknown>;
  signingSecret: string | null;
}

export interface AlertSendResult {
  delivered: boolean;
  /** Why it did not go out (never a secret). */
  error: string | null;
  /** Trying again cannot help (a 4xx answer, a refused recipient, a destination the rules refuse). */
  permanent: boolean;
}

const SENT: AlertSendResult = { delivered: true, error: null, permanent: false };

/** Header naming the event on every alert (webhook, Slack, email), equal to `webhook-id`. */
export const EVENT_ID_HEADER = 'Svc-Event-Id';
export const EVENT_TYPE_HEADER = 'Svc-Event-Type';

/**
 * What is missing for email, as a sentence naming the settings; null when SMTP is configured.
 * Without it, email channels can be created but nothing can be mailed (not even confirmations).
 */
export function smtpMissing(smtp: SmtpSettings): string | null {
  const missing: string[] = [];
  if (!smtp.host) {
    missing.push('smtp.host (SMTP_HOST)');
  }
  if (!smtp.from) {
    missing.push('smtp.from (SMTP_FROM)');
  }
  return missing.length === 0
    ? null
    : `email is not configured on this server: set ${missing.join(' and ')}; see docs/alerts.md`;
}

export class AlertSender {
  constructor(
    private readonly settings: AlertSenderSettings,
    private readonly options: { resolve?: Resolver } = {},
  ) {}

  /** The same sender with another per-send timeout (the API's synchronous channel test). */
  withTimeout(timeoutMs: number): AlertSender {
    return new AlertSender({ ...this.settings, timeoutMs }, this.options);
  }

  /** Sends `message` (of `event`, or a test) through `channel`. */
  async send(
    channel: AlertChannelTarget,
    message: AlertMessage,
    event: AlertEventView | null,
    nowMs: number,
  ): Promise<AlertSendResult> {
    switch (channel.kind) {
      case 'email': {
        const mail = emailContent(message, this.settings.serviceName);
        return this.mail(String(channel.config.address), mail, {
          messageKey: `${message.eventId}.${channel.id}`,
          headers: { [EVENT_ID_HEADER]: message.eventId, [EVENT_TYPE_HEADER]: message.type },
        });
      }
      case 'webhook': {
        if (!channel.signingSecret) {
          return { delivered: false, error: 'the channel has no signing secret', permanent: true };
        }
        const body = webhookAlertBody(message, event);
        const timestampSec = Math.floor(nowMs / 1000);
        return this.post(String(channel.config.url), body, {
          [WEBHOOK_ID_HEADER]: message.eventId,
          [WEBHOOK_TIMESTAMP_HEADER]: String(timestampSec),
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook({
            msgId: message.eventId,
            timestampSec,
            body,
            secrets: [channel.signingSecret],
          }),
          'Idempotency-Key': message.eventId,
          [EVENT_ID_HEADER]: message.eventId,
          [EVENT_TYPE_HEADER]: message.type,
        });
      }
      case 'slack':
        return this.post(
          String(channel.config.webhook_url),
          JSON.stringify(slackPayload(message, this.settings.serviceName)),
          {
            [EVENT_ID_HEADER]: message.eventId,
            [EVENT_TYPE_HEADER]: message.type,
          },
          // The incoming-webhook URL is a credential: a span records its first path segment only.
          { secretPath: true },
        );
      default:
        return { delivered: false, error: `unknown channel kind ${channel.kind}`, permanent: true };
    }
  }

  /** Mails `content` to `to` over the configured SMTP server. */
  async mail(
    to: string,
    content: { subject: string; text: string; html: string },
    options: { messageKey: string; headers?: Record<string, string> },
  ): Promise<AlertSendResult> {
    const { smtp, timeoutMs } = this.settings;
    const missing = smtpMissing(smtp);
    if (missing) {
      return { delivered: false, error: missing, permanent: true };
    }
    const transport = createTransport({
      host: smtp.host!,
      port: smtp.port,
      secure: smtp.tls === 'implicit',
      requireTLS: smtp.tls === 'starttls',
      ignoreTLS: smtp.tls === 'none',
      auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    try {
      await transport.sendMail({
        from: smtp.from!,
        to,
        subject: content.subject,
        text: content.text,
        html: content.html,
        // The same message id on a resend after a crash: mail systems and readers can fold the copies.
        messageId: `<${options.messageKey}@${messageIdDomain(smtp.from!)}>`,
        headers: options.headers,
      });
      return SENT;
    } catch (err) {
      return smtpFailure(err);
    } finally {
      transport.close();
    }
  }

  private async post(
    url: string,
    body: string,
    headers: Record<string, string>,
    { secretPath = false }: { secretPath?: boolean } = {},
  ): Promise<AlertSendResult> {
    // Within a trace, `traceparent` of the request's own span, after every other header.
    const result = await withClientSpan({ method: 'POST', url, secretPath }, (traceHeaders) =>
      deliverHttp({
        url,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': `${this.settings.serviceName}/${this.settings.version}`,
          ...headers,
          ...traceHeaders,
        },
        body,
        timeoutMs: this.settings.timeoutMs,
        followRedirects: false,
        rules: this.settings.rules,
        resolve: this.options.resolve,
        maxResponseBytes: 4096,
      }),
    );
    return httpOutcome(result);
  }
}

/** 2xx went out; 408, 429, 5xx, network trouble and timeouts may pass later; the rest will not. */
export function httpOutcome(result: HttpDeliveryResult): AlertSendResult {
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) {
    return SENT;
  }
  if (status === null) {
    const permanent = result.errorKind === 'destination_not_allowed' || result.errorKind === 'invalid_request';
    return { delivered: false, error: result.error ?? 'no response', permanent };
  }
  const snippet = (result.body ?? '').trim().slice(0, 200);
  const error = `HTTP ${status}${snippet ? `: ${snippet}` : ''}`;
  return { delivered: false, error, permanent: !(status === 408 || status === 429 || status >= 500) };
}

/** A 5xx SMTP reply or a refused envelope is permanent; connection trouble and 4xx replies are not. */
function smtpFailure(err: unknown): AlertSendResult {
  const e = err as { message?: string; responseCode?: number; code?: string };
  const permanent = (e.responseCode !== undefined && e.responseCode >= 500) || e.code === 'EENVELOPE';
  return { delivered: false, error: `smtp: ${e.message ?? String(err)}`, permanent };
}

/** The domain of the From address (`Alerts <alerts@example.com>` → `example.com`), for Message-IDs. */
function messageIdDomain(from: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return match ? match[1] : 'localhost';
}
