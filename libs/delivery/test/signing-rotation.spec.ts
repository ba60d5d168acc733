import { Webhook } from 'standardwebhooks';
import {
  MAX_RETIRED_SIGNING_SECRETS,
  SIGNING_SECRET_OVERLAP_MS,
  type SigningSecretEntry,
  activeSigningSecrets,
  generateSigningSecret,
  rotateSigningSecrets,
  signWebhook,
} from '@svc/delivery';

const HOUR = 3_600_000;
const T0 = Date.parse('2025-06-01T12:00:00Z');

/** Signs `body` at the real current second (standardwebhooks checks it) with the given secrets. */
function signedNow(secrets: string[], body = '{"run_id":"run_01"}') {
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': 'run_01',
    'webhook-timestamp': String(ts),
    'webhook-signature': signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets }),
  };
  return { body, headers };
}

function verifies(secret: string, signed: ReturnType<typeof signedNow>): boolean {
  try {
    new Webhook(secret).verify(signed.body, signed.headers);
    return true;
  } catch {
    return false;
  }
}

describe('signing-secret rotation (spec: Signature 5; Limits → Signing secret overlap)', () => {
  const oldSecret = generateSigningSecret();
  const newSecret = generateSigningSecret();
  const current: SigningSecretEntry[] = [{ secret: oldSecret, expires_at: null }];

  describe('rotateSigningSecrets', () => {
    it('should make the new secret current and let the old one sign for 24 hours', () => {
      expect(rotateSigningSecrets(current, newSecret, T0)).toEqual([
        { secret: newSecret, expires_at: null },
        { secret: oldSecret, expires_at: '2025-06-02T12:00:00.000Z' },
      ]);
    });

    it('should keep an earlier replaced secret until its own expiry when rotating again, and drop expired ones', () => {
      const third = generateSigningSecret();
      const once = rotateSigningSecrets(current, newSecret, T0);
      const twice = rotateSigningSecrets(once, third, T0 + 2 * HOUR);
      expect(twice).toEqual([
        { secret: third, expires_at: null },
        { secret: newSecret, expires_at: '2025-06-02T14:00:00.000Z' },
        { secret: oldSecret, expires_at: '2025-06-02T12:00:00.000Z' },
      ]);
      const later = rotateSigningSecrets(twice, generateSigningSecret(), T0 + 25 * HOUR);
      expect(later.map((e) => e.secret)).toEqual([expect.any(String), third, newSecret]);
      expect(later.map((e) => e.secret)).not.toContain(oldSecret);
    });

    it('should keep at most MAX_RETIRED_SIGNING_SECRETS replaced secrets, the newest', () => {
      let entries: SigningSecretEntry[] = current;
      const issued = [oldSecret];
      for (let i = 0; i < 10; i += 1) {
        const next = generateSigningSecret();
        issued.push(next);
        entries = rotateSigningSecrets(entries, next, T0 + i * 60_000);
      }
      expect(entries).toHaveLength(1 + MAX_RETIRED_SIGNING_SECRETS);
      expect(entries.map((e) => e.secret)).toEqual(issued.slice(-1 - MAX_RETIRED_SIGNING_SECRETS).reverse());
    });
  });

  describe('activeSigningSecrets (injected clock)', () => {
    const rotated = rotateSigningSecrets(current, newSecret, T0);

    it('should sign with the new and the old secret until 24 hours after the rotation', () => {
      expect(activeSigningSecrets(rotated, T0)).toEqual([newSecret, oldSecret]);
      expect(activeSigningSecrets(rotated, T0 + SIGNING_SECRET_OVERLAP_MS - 1)).toEqual([newSecret, oldSecret]);
    });

    it('should sign with the new secret only from 24 hours after the rotation', () => {
      expect(activeSigningSecrets(rotated, T0 + SIGNING_SECRET_OVERLAP_MS)).toEqual([newSecret]);
      expect(activeSigningSecrets(rotated, T0 + 30 * 24 * HOUR)).toEqual([newSecret]);
    });

    it('should give two v1 signatures inside the window that standardwebhooks verifies with each secret', () => {
      const signed = signedNow(activeSigningSecrets(rotated, T0 + 23 * HOUR));
      const parts = signed.headers['webhook-signature'].split(' ');
      expect(parts).toHaveLength(2);
      expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);
      expect(verifies(newSecret, signed)).toBe(true);
      expect(verifies(oldSecret, signed)).toBe(true);
      expect(verifies(generateSigningSecret(), signed)).toBe(false);
    });

    it('should give one signature after the window that only the new secret verifies', () => {
      const signed = signedNow(activeSigningSecrets(rotated, T0 + 24 * HOUR));
      expect(signed.headers['webhook-signature'].split(' ')).toHaveLength(1);
      expect(verifies(newSecret, signed)).toBe(true);
      expect(verifies(oldSecret, signed)).toBe(false);
    });
  });
});
