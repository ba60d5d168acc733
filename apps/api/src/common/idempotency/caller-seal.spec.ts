import { DomainError } from '@svc/common';
import { openForCaller, sealToCaller } from './caller-seal';

describe('caller seal', () => {
  const secret = 'sjs_abcdefgh0123456789abcdefghijklmnopqrstuv';

  it('should round-trip for the same credential and context, and never contain the secret', () => {
    const sealed = sealToCaller(secret, 'sjs_caller', 'ws_1/key-1');
    expect(sealed).toMatch(/^sealed\.v1\./);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice(4, 12));
    expect(openForCaller(sealed, 'sjs_caller', 'ws_1/key-1')).toBe(secret);
  });

  it('should use a fresh IV per seal', () => {
    expect(sealToCaller(secret, 'c', 'x')).not.toBe(sealToCaller(secret, 'c', 'x'));
  });

  it('should refuse another credential, another context, tampering and garbage with 409 conflict', () => {
    const sealed = sealToCaller(secret, 'sjs_caller', 'ws_1/key-1');
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    for (const [value, credential, context] of [
      [sealed, 'sjs_other', 'ws_1/key-1'],
      [sealed, 'sjs_caller', 'ws_2/key-1'],
      [tampered, 'sjs_caller', 'ws_1/key-1'],
      ['sealed.v1.AAAA', 'sjs_caller', 'ws_1/key-1'],
      [secret, 'sjs_caller', 'ws_1/key-1'],
    ]) {
      let error: unknown;
      try {
        openForCaller(value, credential, context);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).body.code).toBe('conflict');
      expect((error as DomainError).message).not.toContain(secret);
    }
  });
});
