import { ValidationFailedError } from '@svc/common';
import { type AlertChannelKind, checkUrlStatic, type NetworkRules } from '@svc/delivery';

/**
 * RFC 5321 caps a path at 254 characters; one `@`, no spaces or specials in the local part, a
 * dotted domain. Control characters are refused separately (header injection).
 */
const EMAIL_PATTERN =
  /^[^\s@<>()",;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

function hasControlCharacter(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}
const MAX_URL_LENGTH = 2048;

/** The one configuration key of each kind (decisions.md → Alert channels). */
export const CHANNEL_CONFIG_KEY: Record<AlertChannelKind, 'address' | 'url' | 'webhook_url'> = {
  email: 'address',
  webhook: 'url',
  slack: 'webhook_url',
};

/**
 * The stored configuration of a channel of `kind`, or `400 validation_failed` naming
 * `config.<key>`: an email address, or an http(s) URL that the server's network rules allow
 * (hosted mode refuses private and loopback targets at create, as for job webhooks).
 */
export function checkChannelConfig(
  kind: AlertChannelKind,
  config: Record<string, unknown>,
  rules: NetworkRules,
): Record<string, string> {
  const key = CHANNEL_CONFIG_KEY[kind];
  const fields: Record<string, string> = {};
  for (const name of Object.keys(config)) {
    if (name !== key) {
      fields[`config.${name}`] = `unknown field (a ${kind} channel has only config.${key})`;
    }
  }
  const value = config[key];
  if (typeof value !== 'string' || value.trim() === '') {
    fields[`config.${key}`] = 'required: a non-empty string';
  } else if (kind === 'email') {
    if (value.length > 254 || hasControlCharacter(value) || !EMAIL_PATTERN.test(value)) {
      fields[`config.${key}`] = 'must be an email address such as ops@example.com';
    }
  } else if (value.length > MAX_URL_LENGTH) {
    fields[`config.${key}`] = `must be at most ${MAX_URL_LENGTH} characters`;
  } else {
    const checked = checkUrlStatic(value, rules);
    if (!checked.ok) {
      fields[`config.${key}`] = checked.reason;
    }
  }
  if (Object.keys(fields).length > 0) {
    throw new ValidationFailedError(fields);
  }
  return { [key]: (value as string).trim() };
}
