import { DomainError } from '@svc/common';
import { parsePreviewBody, parseValidateBody } from './schedule-request.schema';

function fieldsFor(parse: (body: unknown) => unknown, body: unknown): string[] {
  try {
    parse(body);
    return [];
  } catch (err) {
    return Object.keys((err as DomainError).body.fields ?? {}).sort();
  }
}

describe('schedule request bodies', () => {
  describe('after', () => {
    it.each([
      '2026-03-01T10:00:00Z',
      '2026-03-01t10:00:00z',
      '2026-03-01T10:00:00.123+05:30',
      '2028-02-29T00:00:00-08:00',
    ])('should accept the RFC 3339 instant %p', (after) => {
      expect(fieldsFor(parsePreviewBody, { expr: 'daily', after })).toEqual([]);
    });

    it.each([
      '2026-02-29T00:00:00Z', // not a leap year
      '2026-02-30T00:00:00Z', // Date.parse would roll this over to March 2nd
      '2026-04-31T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T10:60:00Z',
      '2026-03-01T10:00:00', // no offset
      '2026-03-01 10:00:00Z',
      '2026-03-01',
      'now',
    ])('should refuse %p', (after) => {
      expect(fieldsFor(parsePreviewBody, { expr: 'daily', after })).toEqual(['after']);
    });
  });

  describe('count', () => {
    it.each([1, 10, 100, null])('should accept %p', (count) =>
      expect(fieldsFor(parsePreviewBody, { expr: 'daily', count })).toEqual([]),
    );
    it.each([0, 101, 2.5, '5'])('should refuse %p', (count) =>
      expect(fieldsFor(parsePreviewBody, { expr: 'daily', count })).toEqual(['count']),
    );
  });

  it('should refuse an expr over 4096 UTF-8 bytes, counting bytes not characters', () => {
    expect(fieldsFor(parseValidateBody, { expr: 'é'.repeat(2048) })).toEqual([]);
    expect(fieldsFor(parseValidateBody, { expr: 'é'.repeat(2049) })).toEqual(['expr']);
  });

  it('should name unknown, missing and mistyped fields all at once', () => {
    expect(fieldsFor(parsePreviewBody, { kind: 'crontab', timezone: 5, extra: true })).toEqual([
      'expr',
      'extra',
      'kind',
      'timezone',
    ]);
    expect(fieldsFor(parseValidateBody, { expr: 'daily', count: 3 })).toEqual(['count']);
  });

  it('should word every message as a sentence with the allowed range or values', () => {
    let fields: Record<string, string> = {};
    try {
      parsePreviewBody({ kind: 'crontab', timezone: 5, count: 0, after: 7 });
    } catch (err) {
      fields = (err as DomainError).body.fields ?? {};
    }
    expect(fields).toEqual({
      expr: 'is required',
      kind: 'must be one of auto, natural, quartz, cron, rrule, or null',
      timezone: 'must be a string of at most 64 characters, or null',
      count: 'must be an integer from 1 to 100, or null',
      after: 'must be a string, or null',
    });
  });

  it('should refuse a body that is not an object', () => {
    expect(fieldsFor(parseValidateBody, ['daily'])).toEqual(['body']);
    expect(fieldsFor(parseValidateBody, null)).toEqual(['body']);
  });
});
