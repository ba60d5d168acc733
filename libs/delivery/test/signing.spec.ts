import { Webhook } from 'standardwebhooks';
import {
  SIGNING_SECRET_PREFIX,
  generateSigningSecret,
  isValidSigningSecret,
  signWebhook,
  signingKeyFromSecret,
} from '@svc/delivery';

const nowSec = () => Math.floor(Date.now() / 1000);

function headersFor(msgId: string, timestampSec: number, signature: string): Record<string, string> {
  return { 'webhook-id': msgId, 'webhook-timestamp': String(timestampSec), 'webhook-signature': signature };
}

describe('signing (spec: Events → Signature)', () => {
  describe('generateSigningSecret', () => {
    it('should return whsec_ + base64 of 32 random bytes', () => {
      const secret = generateSigningSecret();
      expect(secret.startsWith(SIGNING_SECRET_PREFIX)).toBe(true);
      expect(signingKeyFromSecret(secret)).toHaveLength(32);
      expect(isValidSigningSecret(secret)).toBe(true);
    });

    it('should return a different secret each time', () => {
      expect(generateSigningSecret()).not.toEqual(generateSigningSecret());
    });
  });

  describe('isValidSigningSecret', () => {
    it('should reject secrets without the prefix or with a non-base64 key', () => {
      expect(isValidSigningSecret('abc')).toBe(false);
      expect(isValidSigningSecret('whsec_')).toBe(false);
      expect(isValidSigningSecret('whsec_not base64!')).toBe(false);
    });
  });

  describe('signWebhook', () => {
    const body = JSON.stringify({ run_id: 'run_01', attempt: 0, text: 'héllo ✓' });

    it('should produce a signature that standardwebhooks verifies', () => {
      const secret = generateSigningSecret();
      const ts = nowSec();
      const signature = signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets: [secret] });
      expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(new Webhook(secret).verify(body, headersFor('run_01', ts, signature))).toEqual(JSON.parse(body));
    });

    it('should match the reference implementation byte for byte', () => {
      const secret = generateSigningSecret();
      const ts = 1_700_000_000;
      const ours = signWebhook({ msgId: 'run_x', timestampSec: ts, body, secrets: [secret] });
      expect(ours).toEqual(new Webhook(secret).sign('run_x', new Date(ts * 1000), body));
    });

    it('should sign bytes and the equal string identically', () => {
      const secret = generateSigningSecret();
      const a = signWebhook({ msgId: 'm', timestampSec: 1, body, secrets: [secret] });
      const b = signWebhook({ msgId: 'm', timestampSec: 1, body: Buffer.from(body, 'utf8'), secrets: [secret] });
      expect(a).toEqual(b);
    });

    it('should fail verification when the body was tampered with', () => {
      const secret = generateSigningSecret();
      const ts = nowSec();
      const signature = signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets: [secret] });
      expect(() => new Webhook(secret).verify(body.replace('0', '1'), headersFor('run_01', ts, signature))).toThrow();
    });

    it('should fail verification when the id or timestamp header was changed', () => {
      const secret = generateSigningSecret();
      const ts = nowSec();
      const signature = signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets: [secret] });
      expect(() => new Webhook(secret).verify(body, headersFor('run_02', ts, signature))).toThrow();
      expect(() => new Webhook(secret).verify(body, headersFor('run_01', ts - 1, signature))).toThrow();
    });

    it('should fail verification when the timestamp is older than five minutes', () => {
      const secret = generateSigningSecret();
      const ts = nowSec() - 6 * 60;
      const signature = signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets: [secret] });
      expect(() => new Webhook(secret).verify(body, headersFor('run_01', ts, signature))).toThrow(/timestamp/i);
    });

    it('should fail verification with another secret', () => {
      const ts = nowSec();
      const signature = signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets: [generateSigningSecret()] });
      expect(() => new Webhook(generateSigningSecret()).verify(body, headersFor('run_01', ts, signature))).toThrow();
    });

    it('should emit one signature per secret during rotation, each verifying alone', () => {
      const oldSecret = generateSigningSecret();
      const newSecret = generateSigningSecret();
      const ts = nowSec();
      const signature = signWebhook({ msgId: 'run_01', timestampSec: ts, body, secrets: [oldSecret, newSecret] });
      const parts = signature.split(' ');
      expect(parts).toHaveLength(2);
      expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);
      expect(new Webhook(oldSecret).verify(body, headersFor('run_01', ts, signature))).toBeTruthy();
      expect(new Webhook(newSecret).verify(body, headersFor('run_01', ts, signature))).toBeTruthy();
      expect(() => new Webhook(generateSigningSecret()).verify(body, headersFor('run_01', ts, signature))).toThrow();
    });

    it('should reject an empty secret list and a fractional timestamp', () => {
      expect(() => signWebhook({ msgId: 'm', timestampSec: 1, body, secrets: [] })).toThrow();
      expect(() => signWebhook({ msgId: 'm', timestampSec: 1.5, body, secrets: [generateSigningSecret()] })).toThrow();
    });
  });
});
