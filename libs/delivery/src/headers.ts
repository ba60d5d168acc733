/**
 * Header rules shared by the API (create-time validation) and delivery (spec: Sink: webhook
 * configuration → reserved headers).
 */

/**
 * Exact names (lower case) that users may not set through `sink.config.headers`.
 * Transport headers are owned by the HTTP client; the others are set by the service.
 */
const RESERVED_EXACT: ReadonlySet<string> = new Set([
  // transport (RFC 9110/9112 hop-by-hop and framing; undici manages them)
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'proxy-authorization',
  'http2-settings',
  // content description and identity of the sender
  'content-type',
  'content-encoding',
  'user-agent',
  // idempotency
  'idempotency-key',
  // tracing (W3C Trace Context and Baggage)
  'traceparent',
  'tracestate',
  'baggage',
]);

/** Prefixes (lower case) reserved as a whole: Standard Webhooks signing and the service's own. */
const RESERVED_PREFIXES: readonly string[] = ['webhook-', 'svc-'];

/** RFC 9110 `token`: the only characters allowed in a field name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * True when `name` (any case) is a reserved header that `sink.config.headers` cannot set:
 * transport (`host`, `content-length`, `transfer-encoding`, `connection`, …), signing
 * (`webhook-*`), `idempotency-key`, tracing (`traceparent`, `tracestate`, `baggage`), every
 * `svc-*` header, `content-type`, `content-encoding` and `user-agent`.
 * The API rejects them at create/update time with 400 `validation_failed`.
 */
export function isReservedHeader(name: string): boolean {
  const lower = name.trim().toLowerCase();
  if (RESERVED_EXACT.has(lower)) {
    return true;
  }
  return RESERVED_PREFIXES.some((p) => lower.startsWith(p));
}

/** True when `name` is a syntactically valid HTTP field name (RFC 9110 token). */
export function isValidHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/**
 * True when `value` can be sent as a field value: no CR, LF or NUL (header injection), and no
 * other control characters except horizontal tab.
 */
export function isValidHeaderValue(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[\x00-\x08\x0a-\x1f\x7f]/.test(value);
}

/** Maximum number of custom headers on a webhook sink (spec: Limits → Custom headers). */
export const MAX_CUSTOM_HEADERS = 50;

/**
 * Create-time checks of a custom header map, keyed by field path
 * (`sink.config.headers.<Name>` → message). Empty when valid. Template syntax in values is
 * checked separately by `validateTemplates`.
 */
export function validateCustomHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  basePath = 'sink.config.headers',
): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!headers) {
    return errors;
  }
  const names = Object.keys(headers);
  if (names.length > MAX_CUSTOM_HEADERS) {
    errors[basePath] = `at most ${MAX_CUSTOM_HEADERS} custom headers are allowed`;
  }
  const seen = new Set<string>();
  for (const name of names) {
    const path = `${basePath}.${name}`;
    const value = headers[name];
    if (!isValidHeaderName(name)) {
      errors[path] = 'invalid header name';
    } else if (isReservedHeader(name)) {
      errors[path] = `header "${name}" is reserved and cannot be set`;
    } else if (seen.has(name.toLowerCase())) {
      errors[path] = `header "${name}" is given more than once`;
    } else if (typeof value !== 'string') {
      errors[path] = 'header value must be a string';
    } else if (!isValidHeaderValue(value)) {
      errors[path] = 'header value must not contain control characters';
    }
    seen.add(name.toLowerCase());
  }
  return errors;
}
