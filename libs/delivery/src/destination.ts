/**
 * Destinations (destination limits): the key a job's attempts are counted under when a
 * workspace limits how many requests one receiver gets. A webhook's destination is its URL's
 * `host:port` (lowercase, the scheme's default port filled in: `hooks.example.com:443`), unless its
 * sink names one (`sink.config.destination`), which lets several hosts share one limit or one host
 * carry several. Pure: no I/O.
 */

/**
 * At most this many characters: a destination is a path parameter (`/destinations/{destination}`),
 * and the API's router refuses longer ones (`MAX_PARAM_LENGTH`). A webhook whose `host:port` is
 * longer can be limited through a name its sink sets.
 */
export const DESTINATION_MAX_LENGTH = 128;

/**
 * A destination key: a lowercase host name or IPv4 address (letters, digits, `.`, `-`, `_`), or a
 * bracketed IPv6 address, optionally followed by `:port`. Names a sink sets follow the same rule.
 */
export const DESTINATION_PATTERN = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?)(?::[0-9]{1,5})?$/;

export const DESTINATION_RULE =
  'a lowercase host[:port] (`hooks.example.com:443`) or a name of letters, digits, `.`, `-` and `_` (at most 128 characters)';

export function isDestination(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > DESTINATION_MAX_LENGTH) {
    return false;
  }
  if (!DESTINATION_PATTERN.test(value)) {
    return false;
  }
  const port = /:([0-9]{1,5})$/.exec(value)?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** `https://Hooks.Example.com/x` → `hooks.example.com:443`; null for a URL that does not parse. */
export function webhookDestination(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol];
  if (!parsed.hostname || !port) {
    return null;
  }
  return `${parsed.hostname.toLowerCase()}:${port}`;
}

/**
 * The destination of a job's sink: the name it sets (`config.destination`), else a webhook's
 * `host:port`; null for a sink that names none (other kinds: never limited).
 */
export function destinationOf(kind: string, config: Readonly<Record<string, unknown>>): string | null {
  if (typeof config.destination === 'string' && config.destination !== '') {
    return config.destination;
  }
  if (kind === 'webhook' && typeof config.url === 'string') {
    return webhookDestination(config.url);
  }
  return null;
}
