import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { PreviewScheduleDto } from './schedule-request.dto';

function errorsFor(body: Record<string, unknown>): string[] {
  return validateSync(plainToInstance(PreviewScheduleDto, body), { whitelist: true, forbidNonWhitelisted: true }).map(
    (e) => e.property,
  );
}

describe('PreviewScheduleDto', () => {
  describe('after', () => {
    it.each([
      '2026-03-01T10:00:00Z',
      '2026-03-01t10:00:00z',
      '2026-03-01T10:00:00.123+05:30',
      '2028-02-29T00:00:00-08:00',
    ])('should accept the RFC 3339 instant %p', (after) => {
      expect(errorsFor({ expr: 'daily', after })).toEqual([]);
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
      expect(errorsFor({ expr: 'daily', after })).toEqual(['after']);
    });
  });

  describe('count', () => {
    it.each([1, 10, 100])('should accept %p', (count) => expect(errorsFor({ expr: 'daily', count })).toEqual([]));
    it.each([0, 101, 2.5, '5'])('should refuse %p', (count) =>
      expect(errorsFor({ expr: 'daily', count })).toEqual(['count']),
    );
  });

  it('should refuse an expr over 4096 UTF-8 bytes, counting bytes not characters', () => {
    expect(errorsFor({ expr: 'é'.repeat(2048) })).toEqual([]);
    expect(errorsFor({ expr: 'é'.repeat(2049) })).toEqual(['expr']);
  });
});
