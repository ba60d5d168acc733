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
  /**
   * `sinks.webhook.dns_servers`: resolve webhook hostnames through these servers (`ip` or
   * `ip:port`) instead of the system resolver. A hosted server points them at a public resolver
   * so names of its own private network do not resolve at all.
   */
  dnsServers?: readonly string[];
}

/** The rules of a server's configuration (the worker's attempts, the API's checks and sink tests). */
export function networkRulesOf(config: {
  mode: ServerMode;
  sinks: { webhook: { allow_private_networks: boolean; dns_servers?: readonly string[] } };
}): NetworkRules {
  return {
    mode: config.mode,
    allowPrivateNetworks: config.sinks.webhook.allow_private_networks,
    dnsServers: config.sinks.webhook.dns_servers ?? [],
  };
}

/** Ports a restricted (hosted) server may connect to. */
export const HOSTED_ALLOWED_PORTS: readonly number[] = [80, 443];

/** The error text of a destination refused by the rules (decisions: Network rules). */
export const DESTINATION_NOT_ALLOWED = 'destination not allowed';

/** `what` says what the refused address is (`a loopback address`), without the address itself. */
export type CheckResult = { ok: true } | { ok: false; reason: string; what?: string };

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
  if (range === 'rfc6052' && p[2] !== 0) {
    // The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) embeds the IPv4 address where its
    // operator chose: it is not unwrapped, and as a non-global address it is refused.
    return v6;
  }
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return embedded(p[6], p[7]);
  }
  if (range === '6to4') {
    return embedded(p[1], p[2]);
  }
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 2.5.5.1): all of ::/96 but :: and ::1, so
  // that ::2 is 0.0.0.2 ("this network"), not an unlisted IPv6 address.
  const compatible = p.slice(0, 6).every((x) => x === 0);
  if (compatible && !(p[6] === 0 && p[7] <= 1)) {
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
  const refused = refusedRange(addr);
  if (refused !== null) {
    return { ok: false, reason: `${DESTINATION_NOT_ALLOWED}: ${addr.toString()} is ${refused}`, what: refused };
  }
  return { ok: true };
}

/**
 * Cloud metadata and platform endpoints outside the special-purpose ranges (the others —
 * 169.254.169.254, 169.254.170.2, fd00:ec2::254, 100.100.100.200, 192.0.0.192 — are link-local,
 * unique-local, carrier-grade NAT or reserved anyway).
 */
const METADATA_ADDRESSES: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [
  [ipaddr.parse('168.63.129.16'), 32], // Azure WireServer / platform DNS
];

/** IPv6 special-purpose blocks ipaddr.js calls `unicast`. */
const IPV6_REFUSED: ReadonlyArray<[ipaddr.IPv6, number, string]> = [
  [ipaddr.IPv6.parse('3fff::'), 20, 'a documentation address'], // RFC 9637
];
const IPV6_GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/** Why a (normalized) address is not a public unicast destination, or null when it is one. */
function refusedRange(addr: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  if (METADATA_ADDRESSES.some(([net, bits]) => addr.kind() === net.kind() && addr.match(net, bits))) {
    return 'a cloud metadata address';
  }
  const range = addr.range();
  if (range !== 'unicast') {
    return describeRange(range);
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    const listed = IPV6_REFUSED.find(([net, bits]) => v6.match(net, bits));
    if (listed) {
      return listed[2];
    }
    // Only 2000::/3 is allocated for global unicast; anything else is reserved or unassigned.
    if (!v6.match(...IPV6_GLOBAL_UNICAST)) {
      return 'not a global unicast address';
    }
  }
  return null;
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
    case 'reserved':
    case 'benchmarking':
    case 'discard':
    case 'deprecatedSiteLocal':
    case 'teredo':
    case 'rfc6052':
      return `a reserved address (${range})`;
    default:
      return `not a public address (${range})`;
  }
}

/**
 * Names that can only mean this machine or a private network, refused without resolving when
 * restricted: `localhost` (RFC 6761), `.local` (mDNS, RFC 6762), `.home.arpa` (RFC 8375),
 * `.internal` (reserved for private use, ICANN 2024; includes metadata.google.internal), the
 * GCP metadata alias `metadata.goog`, and single-label names, which a resolver completes with
 * its search domains (`http://metadata/`, `http://db/`).
 */
const PRIVATE_NAME_SUFFIXES = ['localhost', 'local', 'home.arpa', 'internal', 'metadata.goog'];

function privateNameReason(hostname: string): string | null {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) {
    return 'localhost is not allowed';
  }
  const suffix = PRIVATE_NAME_SUFFIXES.find((s) => h === s || h.endsWith(`.${s}`));
  if (suffix) {
    return `names under .${suffix} are private`;
  }
  if (!h.includes('.')) {
    return 'a single-label host name is not allowed; use a fully qualified domain name';
  }
  return null;
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
 * templates, and on restricted servers no literal non-public address, no private name
 * (`localhost`, `.local`, `.internal`, single-label …), and (hosted) only ports 80 and 443.
 * Alternate spellings need no rule of their own: the WHATWG URL parser — the same one the
 * client sends with — maps IDN and full-width characters (`１２７。０。０。１`, `ｌｏｃａｌｈｏｓｔ`),
 * drops a trailing dot and reads every IPv4 form (`127.1`, `0x7f.1`, `0177.0.0.1`,
 * `2130706433`) to the dotted address before it is checked. The reason is meant for the 400
 * field `sink.config.url`.
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
    const literal = literalAddress(parsed);
    if (literal !== null) {
      const res = checkAddress(literal, rules);
      if (!res.ok) {
        return res;
      }
    } else {
      const reason = privateNameReason(parsed.hostname);
      if (reason !== null) {
        return { ok: false, reason: `${DESTINATION_NOT_ALLOWED}: ${reason}` };
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
