import { ValidationFailedError } from '@svc/common';
import { IF_MATCH_PATTERN, IF_NONE_MATCH_PATTERN, parsePreconditions } from './job-key.pipe';

describe('parsePreconditions', () => {
  it('should take exactly what the document’s If-Match pattern allows', () => {
    const taken = ['*', '"1"', 'W/"12"', '7', ' "3" ', '"9999999999"'];
    const refused = ['', 'abc', '"0"', '"01"', 'W/*', '"12345678901"', '\u00a0"1"', '1,2'];
    for (const value of taken) {
      expect({ value, documented: IF_MATCH_PATTERN.test(value) }).toEqual({ value, documented: true });
      expect(() => parsePreconditions(value)).not.toThrow();
    }
    for (const value of refused) {
      expect({ value, documented: IF_MATCH_PATTERN.test(value) }).toEqual({ value, documented: false });
      expect(() => parsePreconditions(value)).toThrow(ValidationFailedError);
    }
    expect(parsePreconditions('W/"12"')).toEqual({ ifMatch: 12 });
    expect(parsePreconditions('*', '*')).toEqual({ ifMatch: '*', ifNoneMatch: '*' });
  });

  it('should take only * as If-None-Match', () => {
    expect(IF_NONE_MATCH_PATTERN.test('*')).toBe(true);
    expect(() => parsePreconditions(undefined, '"1"')).toThrow(ValidationFailedError);
    expect(() => parsePreconditions(undefined, '')).toThrow(ValidationFailedError);
    expect(parsePreconditions()).toEqual({});
  });
});
