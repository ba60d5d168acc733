/**
 * The webhook HTTP client (spec: Events → Webhook request, Response classification; Limits →
 * Network rules, Redirects, Stored response body).
 *
 * Guarantees:
 * - The target URL is checked statically (scheme, literal address, port) before anything is
 *   sent, and so is every redirect hop.
 * - The hostname is resolved once per connection by our own connector, every resolved address
 *   is checked, and the socket connects only to those checked addresses (no second lookup, so
 *   DNS rebinding between check and connect is impossible). Every redirect hop to another
 *   origin opens a new connection and is resolved and checked again.
 * - Proxies from the environment (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, …) are never used:
 *   every request goes through this module's own dispatcher.
 * - At most `maxResponseBytes` of the response body are read; the rest is never buffered.
 * - Errors never throw: every outcome is a `HttpDeliveryResult`.
 */
import { lookup as dnsLookup, Resolver as DnsResolver } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import { isReservedHeader } from './headers';
import { DESTINATION_NOT_ALLOWED, NetworkRules, checkAddress, checkUrlStatic } from './network-rules';

/** Spec: Limits → Stored response body (64 KiB). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** Spec: Limits → Redirects (up to 5). */
export const MAX_REDIRECTS = 5;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/**
 * Why a request produced no usable response:
 * - `network`: connection refused/reset, DNS failure, TLS error (retryable when `retry_on` has `network`)
 * - `timeout`: no response within the attempt timeout (retryable when `retry_on` has `timeout`)
 * - `destination_not_allowed`: refused by the network rules, statically or after resolution (fatal);
 *   the attempt error reads `network_blocked: destination not allowed (…why)`
 * - `too_many_redirects`: more than 5 redirects while following them (fatal)
 * - `invalid_request`: the request itself could not be built (bad header value, bad URL) (fatal)
 */
export type DeliveryErrorKind =
  'network' | 'timeout' | 'destination_not_allowed' | 'too_many_redirects' | 'invalid_request';

/** Resolves a hostname to all its addresses (default: `dns.lookup(host, { all: true })`). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Where a connection goes: the request's host, with the addresses that passed the rules. */
export interface DialTarget {
  hostname: string;
  /** `host[:port]` of the URL: undici derives the TLS server name (SNI) from it when none is given. */
  host?: string;
  protocol: string;
  port: string;
  servername?: string;
  /** Checked addresses, in resolver order; the only ones the socket may connect to. */
  addresses: LookupAddress[];
}

/**
 * Opens the socket for a `DialTarget`. The default is undici's connector (TLS with SNI and
 * certificate checks against the host name) whose `lookup` answers only `target.addresses`.
 * Tests substitute it to route a public test address to a loopback receiver and to record
 * which addresses a connection was given.
 */
export type Dialer = (target: DialTarget, callback: buildConnector.Callback) => void;

/** Prefix of the attempt error of a destination refused by the network rules. */
export const NETWORK_BLOCKED = 'network_blocked';

export interface DeliverHttpOptions {
  url: string;
  method: HttpMethod;
  /** Complete request headers (see `buildWebhookHeaders`). Non-reserved ones count as custom. */
  headers: Readonly<Record<string, string>>;
  /** Raw body; omitted or `undefined` sends none. */
  body?: string | Uint8Array;
  /** Budget of the whole attempt in ms: connect, redirects and response headers. */
  timeoutMs: number;
  /**
   * Abandons the attempt (the run cancelled): the request in flight is aborted, its connection
   * closed, and the result is a `network` failure saying so.
   */
  signal?: AbortSignal;
  /** Follow up to `maxRedirects` redirects (each hop re-checked); else return the 3xx as is. */
  followRedirects?: boolean;
  rules: NetworkRules;
  /** Response bytes to read at most; the body is cut there. Default 64 KiB. */
  maxResponseBytes?: number;
  /** Default 5 (spec). */
  maxRedirects?: number;
  /**
   * DNS resolver, injectable for tests. Called once per new connection. Default: the servers of
   * `rules.dnsServers` when set, else the system resolver.
   */
  resolve?: Resolver;
  /** Socket opener for checked addresses; tests only (see `Dialer`). */
  dial?: Dialer;
  /** Monotonic clock in ms for `durationMs`; default `performance.now`. */
  clock?: () => number;
}

export interface HttpDeliveryResult {
  /** Status of the final response, or null when none arrived. */
  statusCode: number | null;
  /** Final response headers, lower-case names, repeated ones joined with `, `. */
  headers: Record<string, string>;
  /** Final response body as UTF-8 text, at most `maxResponseBytes` bytes; null without a response. */
  body: string | null;
  /** True when the body was longer than `maxResponseBytes` (or its reading was cut short). */
  bodyTruncated: boolean;
  durationMs: number;
  /** Human-readable error (never header values). Present iff `errorKind` is. */
  error?: string;
  errorKind?: DeliveryErrorKind;
  /** `"POST https://host/path (123 bytes)"`: method, URL without credentials, body size. */
  requestSummary: string;
  /** Redirects followed. */
  redirects: number;
  /** URL of the last request sent (or refused). */
  finalUrl: string;
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

/** Marker for a refusal by the network rules inside the connector. */
class DestinationNotAllowedError extends Error {
  readonly code = 'E_DESTINATION_NOT_ALLOWED';
}

/** The attempt error of a refusal: `network_blocked: destination not allowed (why)`. */
function blockedMessage(reason: string): string {
  const why = reason.startsWith(DESTINATION_NOT_ALLOWED) ? reason.slice(DESTINATION_NOT_ALLOWED.length) : reason;
  const detail = why.replace(/^[:\s]+/, '');
  return `${NETWORK_BLOCKED}: ${DESTINATION_NOT_ALLOWED}${detail ? ` (${detail})` : ''}`;
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const DNS_TIMEOUT_MS = 2_000;

/**
 * A resolver that asks the given servers (`ip` or `ip:port`) for A and AAAA records directly,
 * bypassing the system resolver, `/etc/hosts` and search domains. No records at all is ENOTFOUND.
 */
export function dnsServersResolver(servers: readonly string[]): Resolver {
  const resolver = new DnsResolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length === 0) {
      const failure = [v4, v6].find((r): r is PromiseRejectedResult => r.status === 'rejected');
      throw failure?.reason ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return addresses;
  };
}

function resolverFor(rules: NetworkRules): Resolver {
  return rules.dnsServers && rules.dnsServers.length > 0 ? dnsServersResolver(rules.dnsServers) : systemResolver;
}

/** `METHOD scheme://host/path?query (N bytes)`, credentials removed. Never contains header values. */
export function summarizeRequest(method: string, url: string, body: string | Uint8Array | undefined): string {
  let shown = url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.hash = '';
    shown = u.toString();
  } catch {
    shown = '(invalid URL)';
  }
  return `${method} ${shown} (${bodyLength(body)} bytes)`;
}

function bodyLength(body: string | Uint8Array | undefined): number {
  if (body === undefined) {
    return 0;
  }
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/**
 * The addresses a connection to `hostname` may use: an IP literal is itself; a name is resolved
 * once. The whole connection is refused when any address breaks the rules (a mixed answer is
 * as suspicious as a wholly private one).
 */
async function resolveChecked(hostname: string, rules: NetworkRules, resolve: Resolver): Promise<LookupAddress[]> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await resolve(host);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  }
  for (const a of addresses) {
    const res = checkAddress(a.address, rules);
    if (!res.ok) {
      // The resolved address is not shown: it would map the server's own network to its users.
      throw new DestinationNotAllowedError(
        literal ? res.reason : `${host} resolves to ${res.what ?? 'an address that is not allowed'}`,
      );
    }
  }
  return addresses;
}

/** A `lookup` for `net.connect`/`tls.connect` that answers only the pinned addresses. */
function pinnedLookup(addresses: LookupAddress[]) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void,
  ): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

/** Production `Dialer`: undici's connector, whose only source of addresses is the pinned list. */
function connectorDialer(timeoutMs: number): Dialer {
  return (target, callback) => {
    const connect = buildConnector({ timeout: timeoutMs, lookup: pinnedLookup(target.addresses) } as object);
    connect(
      {
        hostname: target.hostname,
        host: target.host,
        protocol: target.protocol,
        port: target.port,
        servername: target.servername,
      },
      callback,
    );
  };
}

/** undici `connect` option: resolve and check once per connection, then dial only what passed. */
function guardedConnector(rules: NetworkRules, resolve: Resolver, dial: Dialer): buildConnector.connector {
  return (options, callback) => {
    resolveChecked(options.hostname, rules, resolve).then(
      (addresses) =>
        dial(
          {
            hostname: options.hostname,
            host: options.host,
            protocol: options.protocol,
            port: options.port,
            servername: options.servername,
            addresses,
          },
          callback,
        ),
      (err: Error) => callback(err, null),
    );
  };
}

function errorChain(err: unknown): Array<Error & { code?: string }> {
  const chain: Array<Error & { code?: string }> = [];
  let cur: unknown = err;
  while (cur instanceof Error && chain.length < 10) {
    chain.push(cur as Error & { code?: string });
    cur = (cur as { cause?: unknown }).cause;
  }
  return chain;
}

function classifyError(
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
): { kind: DeliveryErrorKind; message: string } {
  const chain = errorChain(err);
  const blocked = chain.find((e) => e instanceof DestinationNotAllowedError);
  if (blocked) {
    return { kind: 'destination_not_allowed', message: blockedMessage(blocked.message) };
  }
  if (timedOut || chain.some((e) => e.code === 'UND_ERR_CONNECT_TIMEOUT' || e.code === 'UND_ERR_HEADERS_TIMEOUT')) {
    return { kind: 'timeout', message: `timeout: no response within ${timeoutMs} ms` };
  }
  if (chain.some((e) => e.code === 'UND_ERR_INVALID_ARG')) {
    return { kind: 'invalid_request', message: `invalid request: ${chain[0].message}` };
  }
  const root = chain[chain.length - 1] ?? chain[0];
  const message = root ? root.message : String(err);
  return { kind: 'network', message: `network error: ${message}` };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) {
      continue;
    }
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function withoutCustomHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (isReservedHeader(name)) {
      out[name] = value;
    }
  }
  return out;
}

function withoutHeader(headers: Record<string, string>, lowerName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== lowerName) {
      out[name] = value;
    }
  }
  return out;
}

/** Drop a redirect response's body, reading at most a little so the connection can be reused. */
async function discardBody(body: {
  dump(opts?: { limit?: number }): Promise<void>;
  on(e: 'error', f: () => void): unknown;
}) {
  body.on('error', () => undefined);
  try {
    await body.dump({ limit: 16 * 1024 });
  } catch {
    // the next hop opens a new connection if needed
  }
}

/**
 * Send one webhook attempt. Never throws; see `HttpDeliveryResult`.
 *
 * Redirects (when `followRedirects`): 301/302/307/308 keep the method and body, 303 switches to
 * GET without a body; a hop to another origin (scheme, host or port) drops every custom
 * (non-reserved) header for the rest of the chain; more than `maxRedirects` hops is
 * `too_many_redirects`. Without `followRedirects` the 3xx response is returned as is.
 *
 * The timeout covers everything up to the final response's headers; reading the body is then
 * bounded by the same deadline, and a cut-short body is returned as truncated (the status
 * already decided the outcome).
 */
export async function deliverHttp(opts: DeliverHttpOptions): Promise<HttpDeliveryResult> {
  const clock = opts.clock ?? (() => performance.now());
  const started = clock();
  const maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
  const requestSummary = summarizeRequest(opts.method, opts.url, opts.body);

  let currentUrl = opts.url;
  let method: HttpMethod = opts.method;
  let body = opts.body;
  let headers: Record<string, string> = { ...opts.headers };
  let redirects = 0;

  const fail = (kind: DeliveryErrorKind, error: string, statusCode: number | null = null): HttpDeliveryResult => ({
    statusCode,
    headers: {},
    body: null,
    bodyTruncated: false,
    durationMs: Math.max(0, Math.round(clock() - started)),
    error,
    errorKind: kind,
    requestSummary,
    redirects,
    finalUrl: currentUrl,
  });

  const initial = checkUrlStatic(currentUrl, opts.rules);
  if (!initial.ok) {
    const kind = initial.reason.startsWith(DESTINATION_NOT_ALLOWED) ? 'destination_not_allowed' : 'invalid_request';
    return fail(
      kind,
      kind === 'destination_not_allowed' ? blockedMessage(initial.reason) : `invalid URL: ${initial.reason}`,
    );
  }
  let url = initial.url;

  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, opts.timeoutMs);
  const cancel = () => abort.abort();
  if (opts.signal?.aborted) {
    cancel();
  }
  opts.signal?.addEventListener('abort', cancel, { once: true });

  // An explicit dispatcher: undici never reads proxy variables for it (only EnvHttpProxyAgent does).
  const agent = new Agent({
    connect: guardedConnector(
      opts.rules,
      opts.resolve ?? resolverFor(opts.rules),
      opts.dial ?? connectorDialer(opts.timeoutMs),
    ),
    // Our own deadline (the abort signal) fires first; these are only backstops.
    headersTimeout: opts.timeoutMs + 1000,
    bodyTimeout: opts.timeoutMs + 1000,
    connections: 1,
  });

  try {
    for (;;) {
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, {
          method,
          headers,
          body: body === undefined ? undefined : typeof body === 'string' ? body : Buffer.from(body),
          dispatcher: agent,
          signal: abort.signal,
        });
      } catch (err) {
        if (opts.signal?.aborted && !timedOut) {
          return fail('network', 'cancelled: the attempt was abandoned');
        }
        const { kind, message } = classifyError(err, timedOut, opts.timeoutMs);
        return fail(kind, message);
      }

      const location = res.headers['location'];
      if (opts.followRedirects && REDIRECT_CODES.has(res.statusCode) && typeof location === 'string') {
        await discardBody(res.body);
        if (redirects >= maxRedirects) {
          return fail('too_many_redirects', `too many redirects (more than ${maxRedirects})`, res.statusCode);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return fail('invalid_request', 'invalid redirect location', res.statusCode);
        }
        redirects += 1;
        currentUrl = next.toString();
        const hop = checkUrlStatic(next, opts.rules);
        if (!hop.ok) {
          const kind = hop.reason.startsWith(DESTINATION_NOT_ALLOWED) ? 'destination_not_allowed' : 'invalid_request';
          return fail(
            kind,
            kind === 'destination_not_allowed'
              ? blockedMessage(`redirect: ${hop.reason.slice(DESTINATION_NOT_ALLOWED.length).replace(/^[:\s]+/, '')}`)
              : `invalid redirect: ${hop.reason}`,
          );
        }
        if (next.origin !== url.origin) {
          headers = withoutCustomHeaders(headers);
        }
        if (res.statusCode === 303 && method !== 'HEAD') {
          method = 'GET';
          body = undefined;
          headers = withoutHeader(headers, 'content-type');
        }
        url = next;
        continue;
      }

      // Final response: read at most maxBytes, then stop reading.
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          const remaining = maxBytes - size;
          if (chunk.length > remaining) {
            // More than fits (including any byte after an exactly full buffer): cut and stop.
            chunks.push(chunk.subarray(0, remaining));
            size = maxBytes;
            truncated = true;
            break;
          }
          chunks.push(chunk);
          size += chunk.length;
        }
      } catch {
        truncated = true; // deadline or connection loss while reading: keep what arrived
      } finally {
        if (!res.body.destroyed) {
          res.body.on('error', () => undefined); // destroying an unfinished body emits an abort error
          res.body.destroy();
        }
      }
      // stream:true drops an incomplete trailing UTF-8 sequence left by the cut.
      const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks, size), { stream: truncated });
      return {
        statusCode: res.statusCode,
        headers: flattenHeaders(res.headers),
        body: text,
        bodyTruncated: truncated,
        durationMs: Math.max(0, Math.round(clock() - started)),
        requestSummary,
        redirects,
        finalUrl: currentUrl,
      };
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', cancel);
    void agent.destroy().catch(() => undefined);
  }
}
