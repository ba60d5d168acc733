/**
 * Network rules for webhook targets (spec: Limits → Network rules; decisions: Network rules).
 *
 * Two checks share one policy:
 * - `checkUrlStatic` at create time and before every redirect hop: scheme, literal-address and
 *   port violations (no DNS).
 * - `checkAddress` after resolution, for every address the hostname resolves to. The HTTP
 *   client connects only to addresses that passed it.
 */
import * as ipaddr from 'ipaddr.js';

export type ServerMode = 'hosted' | 'self_hosted';

export interface NetworkRules {
  mode: ServerMode;
  /**
   * `sinks.webhook.allow_private_networks`. Defaults to `true` on self-hosted servers and is
   * ignored in hosted mode, which always refuses non-public destinations.
   */
  allowPrivateNetworks?: boolean;
}

/** Ports a restricted (hosted) server may connect to. */
export const HOSTED_ALLOWED_PORTS: readonly number[] = [80, 443];

/** The error text of a destination refused by the rules (decisions: Network rules). */
export const DESTINATION_NOT_ALLOWED = 'destination not allowed';

export type CheckResult = { ok: true } | { ok: false; reason: string };

export type UrlCheckResult = { ok: true; url: URL } | { ok: false; reason: string };

/** Whether destination addresses must be public unicast. */
export function restrictsAddresses(rules: NetworkRules): boolean {
  return rules.mode === 'hosted' || rules.allowPrivateNetworks === false;
}

/** Whether only ports 80 and 443 are allowed (hosted mode only; self-hosted allows any port). */
export function restrictsPorts(rules: NetworkRules): boolean {
  return rules.mode === 'hosted';
}

/**
 * Parse an IP address in any textual form ipaddr.js accepts (dotted, IPv6 with zone id,
 * IPv4-mapped IPv6 …) and unwrap IPv4 addresses carried inside IPv6 ones: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`). Returns null when `ip` is not an address.
 */
export function normalizeAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = ip.trim().replace(/^\[(.*)\]$/, '$1');
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // parse() rather than process(): also accepts zone ids; we unwrap IPv4 ourselves below.
    addr = ipaddr.parse(text);
  } catch {
    return null;
  }
  if (addr.kind() === 'ipv4') {
    return addr;
  }
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  const p = v6.parts;
  const embedded = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return embedded(p[6], p[7]);
  }
  if (range === '6to4') {
    return embedded(p[1], p[2]);
  }
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 2.5.5.1); excludes :: and ::1 themselves.
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 && p[6] !== 0) {
    return embedded(p[6], p[7]);
  }
  return v6;
}

/**
 * Check one resolved (or literal) address against the rules. Restricted servers accept only
 * public unicast: loopback, private (10/8, 172.16/12, 192.168/16), link-local (incl. the
 * metadata address 169.254.169.254), carrier-grade NAT (100.64/10), unique-local (fc00::/7),
 * IPv6 link-local (fe80::/10), multicast, unspecified, broadcast, documentation, benchmarking,
 * Teredo and other reserved ranges are refused, after unwrapping embedded IPv4 addresses.
 * Anything that is not an IP address is refused.
 */
export function checkAddress(ip: string, rules: NetworkRules): CheckResult {
  const addr = normalizeAddress(ip);
  if (!addr) {
    return { ok: false, reason: `not an IP address: ${ip}` };
  }
  if (!restrictsAddresses(rules)) {
    return { ok: true };
  }
  const range = addr.range();
  if (range !== 'unicast') {
    return { ok: false, reason: `${DESTINATION_NOT_ALLOWED}: ${addr.toString()} is ${describeRange(range)}` };
  }
  return { ok: true };
}

function describeRange(range: string): string {
  switch (range) {
    case 'private':
    case 'uniqueLocal':
      return 'a private address';
    case 'loopback':
      return 'a loopback address';
    case 'linkLocal':
      return 'a link-local address';
    case 'carrierGradeNat':
      return 'a carrier-grade NAT address';
    case 'multicast':
      return 'a multicast address';
    case 'unspecified':
      return 'the unspecified address';
    case 'broadcast':
      return 'the broadcast address';
    default:
      return `not a public address (${range})`;
  }
}

/** Hostnames that always mean this machine (RFC 6761); refused without resolving when restricted. */
function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** The port a URL connects to: explicit, or the scheme default. */
export function effectivePort(url: URL): number {
  if (url.port) {
    return Number(url.port);
  }
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Create-time (and per-redirect-hop) URL check, without DNS: `http`/`https` only, a host, no
 * templates, and on restricted servers no literal non-public address, no `localhost`, and
 * (hosted) only ports 80 and 443. The WHATWG URL parser already normalizes other IPv4
 * encodings (`0x7f.1`, `2130706433`) to dotted form. The reason is meant for the 400 field
 * `sink.config.url`.
 */
export function checkUrlStatic(url: string | URL, rules: NetworkRules): UrlCheckResult {
  let parsed: URL;
  if (url instanceof URL) {
    parsed = url;
  } else {
    if (/\{\{/.test(url)) {
      return { ok: false, reason: 'templates are not allowed in the URL' };
    }
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, reason: 'must be an absolute http or https URL' };
    }
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: 'scheme must be http or https' };
  }
  if (!parsed.hostname) {
    return { ok: false, reason: 'URL must have a host' };
  }
  if (restrictsPorts(rules) && !HOSTED_ALLOWED_PORTS.includes(effectivePort(parsed))) {
    return { ok: false, reason: `${DESTINATION_NOT_ALLOWED}: only ports 80 and 443 are allowed` };
  }
  if (restrictsAddresses(rules)) {
    if (isLocalhostName(parsed.hostname)) {
      return { ok: false, reason: `${DESTINATION_NOT_ALLOWED}: localhost is not allowed` };
    }
    const literal = literalAddress(parsed);
    if (literal !== null) {
      const res = checkAddress(literal, rules);
      if (!res.ok) {
        return res;
      }
    }
  }
  return { ok: true, url: parsed };
}

/** The IP address of a URL whose host is an IP literal (brackets removed), else null. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) && (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host)) ? host : null;
}
