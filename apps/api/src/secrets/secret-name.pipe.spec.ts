import { NotFoundError, ValidationFailedError } from '@svc/common';
import { SecretNameToFindPipe, SecretNameToWritePipe } from './secret-name.pipe';

describe('secret name pipes', () => {
  it.each(['A', '_', 'API_TOKEN', 'a1', `X${'y'.repeat(63)}`])('should pass %s through', (name) => {
    expect(SecretNameToWritePipe.transform(name)).toBe(name);
    expect(SecretNameToFindPipe.transform(name)).toBe(name);
  });

  it.each(['', '1A', 'A-B', 'A B', 'secret.A', `X${'y'.repeat(64)}`, 'Ä'])('should refuse %p', (name) => {
    expect(() => SecretNameToWritePipe.transform(name)).toThrow(ValidationFailedError);
    expect(() => SecretNameToFindPipe.transform(name)).toThrow(NotFoundError);
  });

  it('should name the field and the rule on write', () => {
    try {
      SecretNameToWritePipe.transform('bad-name');
      throw new Error('not refused');
    } catch (err) {
      expect((err as ValidationFailedError).body.fields).toEqual({ name: expect.stringContaining('[A-Za-z_]') });
    }
  });
});
