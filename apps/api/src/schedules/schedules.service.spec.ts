import { kitConfig } from '../../../../test/kit';
import { DEFAULT_PREVIEW_COUNT } from './schedule-request.schema';
import { SchedulesService } from './schedules.service';

/**
 * SchedulesService (no storage): a bad schedule is an answer from validate and a 400 from preview,
 * the default plan's minimum interval holds, and preview counts from `after`.
 */
describe('SchedulesService', () => {
  const service = new SchedulesService(kitConfig({ default_plan: 'free', mode: 'hosted' }));
  const now = new Date('2026-11-28T10:17:00Z');

  describe('validate', () => {
    it('should answer a valid schedule with its kind, canonical form and description', () => {
      expect(service.validate({ expr: 'every 15 minutes' }, now)).toMatchObject({
        valid: true,
        kind_detected: 'natural',
        errors: [],
        canonical: expect.any(String),
        description: expect.any(String),
      });
      expect(service.validate({ expr: '0 9 * * 1-5' }, now)).toMatchObject({ valid: true, kind_detected: 'cron' });
    });

    it('should answer a bad schedule as valid: false with positioned errors, not throw', () => {
      const answer = service.validate({ expr: 'every blue moon' }, now);
      expect(answer.valid).toBe(false);
      expect(answer.errors[0]).toMatchObject({ kind: expect.any(String), message: expect.any(String) });
      expect(answer).not.toHaveProperty('canonical');
    });

    it("should hold the default plan's minimum interval (the request has no workspace)", () => {
      const answer = service.validate({ expr: 'every 10 seconds' }, now);
      expect(answer.valid).toBe(false);
      expect(answer.errors.map((e) => e.kind)).toContain('min_interval');
      const unlimited = new SchedulesService(kitConfig({ mode: 'self_hosted' }));
      expect(unlimited.validate({ expr: 'every 10 seconds' }, now).valid).toBe(true);
    });
  });

  describe('preview', () => {
    it(`should list the next ${DEFAULT_PREVIEW_COUNT} fire times strictly after now, or count after \`after\``, () => {
      const preview = service.preview({ expr: 'every 1 hour', timezone: 'UTC' }, now);
      expect(preview.next).toHaveLength(DEFAULT_PREVIEW_COUNT);
      expect(Date.parse(preview.next[0])).toBeGreaterThan(now.getTime());
      const later = service.preview({ expr: '0 9 * * *', after: '2026-12-24T09:00:00Z', count: 2 }, now);
      expect(later.next).toEqual(['2026-12-25T09:00:00.000Z', '2026-12-26T09:00:00.000Z']);
    });

    it('should refuse a bad schedule (400) naming expr, and an unknown zone naming timezone', () => {
      expect(() => service.preview({ expr: 'every blue moon' }, now)).toThrow(
        expect.objectContaining({
          status: 400,
          body: expect.objectContaining({ fields: { expr: expect.any(String) } }),
        }),
      );
      expect(() => service.preview({ expr: 'every 1 hour', timezone: 'Mars/Olympus' }, now)).toThrow(
        expect.objectContaining({
          body: expect.objectContaining({ fields: { timezone: expect.any(String) }, errors: expect.any(Array) }),
        }),
      );
    });
  });
});
