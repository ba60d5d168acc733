/**
 * Standard Webhooks verification of one delivery against every secret of the rotation window
 * (spec: Events → Signature): the raw body, any of the listed signatures, a timestamp within five
 * minutes. The `standardwebhooks` package does the cryptography and the clock check.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** One header's value (first of a repeated one), by lower-case name. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Verifies against each secret in turn; true when one of them matches (and the timestamp is fresh). */
export function verifyDelivery(secrets: readonly string[], rawBody: Buffer | string, headers: HeaderBag): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signature === undefined) {
    return false;
  }
  const wanted = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
  const payload = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  return secrets.some((secret) => {
    try {
      new Webhook(secret).verify(payload, wanted);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The default signing secret when none is configured: an HMAC of the owner under the API key, so
 * every replica holding the same key and owner derives the same `whsec_` secret, and nothing new
 * has to be distributed. The API key is the stronger secret already: whoever has it can edit jobs.
 */
export function deriveSigningSecret(apiKey: string, owner: string): string {
  const key = createHmac('sha256', apiKey).update(`svc-nestjs signing secret\0${owner}`).digest();
  return `whsec_${key.toString('base64')}`;
}
