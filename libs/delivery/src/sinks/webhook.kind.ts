import { DEFAULT_RETRY_ON, DEFAULT_SUCCESS_CODES } from '../classify';
import { validateCustomHeaders } from '../headers';
import { summarizeRequest } from '../http-client';
import { checkUrlStatic, networkRulesOf } from '../network-rules';
import { collectSecretNames } from '../templating';
import { DESTINATION_MAX_LENGTH, DESTINATION_PATTERN, DESTINATION_RULE, isDestination } from '../destination';
import { deliverWebhookAttempt, type WebhookSinkConfig } from '../webhook-attempt';
import type { SinkAttemptResult, SinkFieldErrors, SinkKind, SinkSendContext, SinkValidateContext } from './sink-kind';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const RETRY_ON_WORDS = ['1xx', '2xx', '3xx', '4xx', '5xx', 'network', 'timeout'] as const;
const MAX_BODY_BYTES = 256 * 1024;
const statusCode = { type: 'integer', minimum: 100, maximum: 599 };
/** Optional fields accept null: the default applies (as PATCH's `null` resets a field). */
const orNull = (schema: Record<string, unknown>, fallback?: unknown) => ({
  anyOf: [schema, { type: 'null' }],
  ...(fallback === undefined ? {} : { default: fallback }),
});

/** What an omitted (or `null`) field of a webhook's config means: stored so, and stated in its schema. */
export const WEBHOOK_CONFIG_DEFAULTS = {
  method: 'POST',
  headers: {} as Record<string, string>,
  success_codes: DEFAULT_SUCCESS_CODES,
  retry_on: DEFAULT_RETRY_ON,
  follow_redirects: false,
} as const;

/** `POST hooks.example.com`: method and host only (no user info, path, query, headers or body). */
export function describeWebhookTarget(config: { method?: unknown; url?: unknown }): string {
  const method = typeof config.method === 'string' ? config.method.toUpperCase() : 'POST';
  let host = '?';
  if (typeof config.url === 'string') {
    try {
      // `host` never includes `user:pass@`; a port stays (it names the target).
      host = new URL(config.url).host || '?';
    } catch {
      host = '?';
    }
  }
  return `${/^[A-Z]+$/.test(method) ? method : '?'} ${host}`;
}

/** The signed HTTP request (docs/delivery.md). */
export class WebhookSinkKind implements SinkKind<WebhookSinkConfig> {
  readonly kind = 'webhook';
  readonly label = 'Webhook';
  readonly description =
    'A signed HTTP request (Standard Webhooks headers) to `url`; `{{…}}` templates in header values and `body`.';
  readonly configSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 2048, description: 'http or https URL; no templates' },
      method: orNull({ enum: [...HTTP_METHODS] }, WEBHOOK_CONFIG_DEFAULTS.method),
      headers: orNull(
        {
          type: 'object',
          additionalProperties: { type: 'string' },
          maxProperties: 50,
          description: 'Custom headers; values may hold templates',
        },
        WEBHOOK_CONFIG_DEFAULTS.headers,
      ),
      body: orNull({
        type: 'string',
        maxLength: MAX_BODY_BYTES,
        description: 'Body template (at most 256 KiB); default the standard payload',
      }),
      success_codes: orNull(
        {
          anyOf: [{ const: '2xx' }, { type: 'array', minItems: 1, items: statusCode }],
          description: '`2xx` or a list of status codes',
        },
        WEBHOOK_CONFIG_DEFAULTS.success_codes,
      ),
      retry_on: orNull(
        {
          type: 'array',
          maxItems: 20,
          items: { anyOf: [{ enum: [...RETRY_ON_WORDS] }, statusCode] },
        },
        WEBHOOK_CONFIG_DEFAULTS.retry_on,
      ),
      follow_redirects: orNull({ type: 'boolean' }, WEBHOOK_CONFIG_DEFAULTS.follow_redirects),
      destination: orNull({
        type: 'string',
        minLength: 1,
        maxLength: DESTINATION_MAX_LENGTH,
        pattern: DESTINATION_PATTERN.source,
        'x-server-check': 'a port, when given, from 1 to 65535',
        description:
          'The destination whose limits the attempts count against (`/api/v1/destinations`); default the URL’s `host:port`',
      }),
    },
  };
  readonly formFields = [
    { name: 'url', label: 'URL', type: 'text', required: true, placeholder: 'https://hooks.example.com/x' },
    { name: 'method', label: 'Method', type: 'select', options: HTTP_METHODS },
    { name: 'headers', label: 'Headers', type: 'map', help: 'One `Name: value` per line' },
    { name: 'body', label: 'Body template', type: 'textarea', help: 'Empty: the standard payload' },
  ] as const;
  readonly overridableFields = ['body', 'headers'] as const;

  disabledReason(): string | null {
    return null;
  }

  async normalize(
    config: WebhookSinkConfig,
    ctx: SinkValidateContext,
  ): Promise<{ config: WebhookSinkConfig } | { fields: SinkFieldErrors }> {
    const fields: SinkFieldErrors = {};
    const check = checkUrlStatic(config.url, networkRulesOf(ctx.config));
    if (!check.ok) {
      fields['sink.config.url'] = check.reason;
    }
    if (config.headers) {
      Object.assign(fields, validateCustomHeaders(config.headers));
    }
    if (typeof config.body === 'string' && Buffer.byteLength(config.body, 'utf8') > MAX_BODY_BYTES) {
      fields['sink.config.body'] = `must be at most ${MAX_BODY_BYTES} bytes of UTF-8`;
    }
    if (config.destination !== undefined && config.destination !== null && !isDestination(config.destination)) {
      fields['sink.config.destination'] = `must be ${DESTINATION_RULE}`;
    }
    if (Object.keys(fields).length > 0) {
      return { fields };
    }
    return {
      config: {
        url: config.url,
        method: config.method ?? WEBHOOK_CONFIG_DEFAULTS.method,
        headers: config.headers ?? {},
        ...(typeof config.body === 'string' ? { body: config.body } : {}),
        success_codes: config.success_codes ?? WEBHOOK_CONFIG_DEFAULTS.success_codes,
        retry_on: config.retry_on ?? [...WEBHOOK_CONFIG_DEFAULTS.retry_on],
        follow_redirects: config.follow_redirects ?? WEBHOOK_CONFIG_DEFAULTS.follow_redirects,
        ...(typeof config.destination === 'string' ? { destination: config.destination } : {}),
      },
    };
  }

  templateFields(config: WebhookSinkConfig): Record<string, string> {
    const texts: Record<string, string> = {};
    for (const [name, value] of Object.entries(config.headers ?? {})) {
      texts[`sink.config.headers.${name}`] = value;
    }
    if (typeof config.body === 'string') {
      texts['sink.config.body'] = config.body;
    }
    return texts;
  }

  secretNames(config: WebhookSinkConfig): string[] {
    return collectSecretNames(config);
  }

  describe(config: WebhookSinkConfig): string {
    return describeWebhookTarget(config);
  }

  summarize(config: WebhookSinkConfig): string {
    return summarizeRequest(config.method ?? 'POST', config.url, undefined);
  }

  async send(config: WebhookSinkConfig, ctx: SinkSendContext): Promise<SinkAttemptResult> {
    const result = await deliverWebhookAttempt({
      config,
      workspace: ctx.workspace,
      run: ctx.run,
      job: ctx.job,
      signingSecrets: ctx.signingSecrets,
      secrets: ctx.secrets,
      nowMs: ctx.nowMs,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
      rules: ctx.rules,
      serviceName: ctx.services.config.service_name,
      version: ctx.services.config.version,
      test: ctx.test,
    });
    const error =
      result.outcome === 'success'
        ? null
        : (result.error ?? (result.statusCode === null ? 'no response' : `HTTP ${result.statusCode}`));
    return {
      outcome: result.outcome,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error,
      requestSummary: result.requestSummary,
      body: result.body,
      retryAfterMs: result.retryAfterMs,
    };
  }
}
