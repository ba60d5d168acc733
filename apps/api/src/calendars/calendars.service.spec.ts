import { authFor, lifecycleOver, OTHER_WORKSPACE, serviceOverKit, settle } from '../../../../test/kit';
import { CalendarsService } from './calendars.service';
import type { CalendarDatesDto, CreateCalendarDto } from './dto/calendar.dto';

/**
 * CalendarsService over the in-memory kit and the real JobLifecycle: dates given as a list or an
 * iCalendar file (exactly one), checked, sorted and deduplicated; a replaced calendar makes the
 * jobs that use it plan again; a calendar in use cannot be deleted (409); tenant isolation.
 */
const ICAL = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'BEGIN:VEVENT',
  'DTSTART;VALUE=DATE:20261225',
  'SUMMARY:Christmas',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('CalendarsService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db, temporal) => {
    const { transactions, calendars, audit } = db.repositories;
    return new CalendarsService(transactions, calendars, audit, lifecycleOver(db, temporal));
  });

  const create = (name: string, dates: string[], who = auth) =>
    kit.service.create(who, { name, dates } as CreateCalendarDto);

  describe('create', () => {
    it('should store the dates sorted and unique, and audit the create with their count', async () => {
      const { created, calendar } = await create('holidays:de', ['2026-12-26', '2026-12-25', '2026-12-26']);
      expect(created).toBe(true);
      expect(calendar).toMatchObject({ name: 'holidays:de', dates: ['2026-12-25', '2026-12-26'] });
      expect(kit.db.audited()).toEqual([
        { actor: auth.actor, action: 'calendar.create', target: 'holidays:de', details: { dates: 2 } },
      ]);
    });

    it('should read the dates of an iCalendar file', async () => {
      const { calendar } = await kit.service.create(auth, { name: 'xmas', ical: ICAL } as CreateCalendarDto);
      expect(calendar.dates).toEqual(['2026-12-25']);
    });

    it('should refuse both or neither of dates and ical, and an impossible date (400), writing nothing', async () => {
      for (const dto of [{ name: 'x' }, { name: 'x', dates: ['2026-01-01'], ical: ICAL }, { name: 'x', dates: null }]) {
        await expect(kit.service.create(auth, dto as CreateCalendarDto)).rejects.toMatchObject({
          status: 400,
          body: { fields: { dates: expect.stringContaining('exactly one') } },
        });
      }
      await expect(create('x', ['2026-01-01', '2026-02-30'])).rejects.toMatchObject({
        status: 400,
        body: { fields: { 'dates[1]': '2026-02-30 is not a date' } },
      });
      await expect(
        kit.service.create(auth, { name: 'x', ical: 'not a calendar' } as CreateCalendarDto),
      ).rejects.toMatchObject({ status: 400, body: { fields: { ical: expect.any(String) } } });
      expect(kit.db.table('calendars').size).toBe(0);
      expect(kit.db.tables.audit).toEqual([]);
    });

    it('should refuse a name that is taken (409 conflict), but not one taken in another workspace', async () => {
      await create('holidays', ['2026-01-01']);
      await expect(create('holidays', ['2026-01-02'])).rejects.toMatchObject({
        status: 409,
        body: { code: 'conflict', message: expect.stringContaining('PUT /api/v1/calendars/holidays') },
      });
      await expect(create('holidays', ['2026-01-02'], authFor(OTHER_WORKSPACE))).resolves.toMatchObject({
        created: true,
      });
    });
  });

  describe('put', () => {
    it('should create a missing calendar, then replace its dates and make the jobs that use it plan again', async () => {
      await expect(
        kit.service.put(auth, 'holidays', { dates: ['2026-01-01'] } as CalendarDatesDto),
      ).resolves.toMatchObject({
        created: true,
      });
      const user = kit.db.addJob('active', { excludeCalendars: ['holidays'] });
      const byName = kit.db.addJob('active', { scheduleExpr: 'every day at 09:00 except calendar holidays' });
      const other = kit.db.addJob('active');
      const { created } = await kit.service.put(auth, 'holidays', { dates: ['2026-01-02'] } as CalendarDatesDto);
      await settle();
      expect(created).toBe(false);
      expect(kit.db.stored(user.id)!.revision).toBe(user.revision + 1);
      expect(kit.db.stored(byName.id)!.revision).toBe(byName.revision + 1);
      expect(kit.db.stored(other.id)!.revision).toBe(other.revision);
      expect(kit.temporal.snapshots.map((s) => s.jobId).sort()).toEqual([user.id, byName.id].sort());
      expect(kit.db.audited().map((entry) => entry.action)).toEqual(['calendar.create', 'calendar.update']);
    });

    it("should not touch another workspace's jobs that use a calendar of the same name", async () => {
      await create('holidays', ['2026-01-01']);
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE, excludeCalendars: ['holidays'] });
      await kit.service.put(auth, 'holidays', { dates: ['2026-01-02'] } as CalendarDatesDto);
      await settle();
      expect(kit.db.stored(theirs.id)!.revision).toBe(theirs.revision);
      expect(kit.temporal.snapshots).toEqual([]);
    });
  });

  describe('remove', () => {
    it('should delete an unused calendar and audit it', async () => {
      await create('holidays', ['2026-01-01']);
      await kit.service.remove(auth, 'holidays');
      await expect(kit.service.get(auth, 'holidays')).rejects.toMatchObject({ status: 404 });
      expect(kit.db.audited()[1]).toEqual({ actor: auth.actor, action: 'calendar.delete', target: 'holidays' });
    });

    it('should refuse to delete a calendar a job uses (409 naming the job) and keep it', async () => {
      await create('holidays', ['2026-01-01']);
      const user = kit.db.addJob('active', { name: 'payroll', excludeCalendars: ['holidays'] });
      await expect(kit.service.remove(auth, 'holidays')).rejects.toMatchObject({
        status: 409,
        body: { message: expect.stringContaining(`used by 1 job(s): payroll (${user.id})`) },
      });
      await expect(kit.service.get(auth, 'holidays')).resolves.toMatchObject({ name: 'holidays' });
    });

    it("should not count a job whose expression names it only in the natural grammar's sense", async () => {
      await create('holidays', ['2026-01-01']);
      // `except holidays` (no `calendar`, no `:`) is not a calendar exclusion: the text matches, the parse does not.
      kit.db.addJob('active', { name: 'n', scheduleExpr: 'every day at 09:00 except holidays' });
      await expect(kit.service.remove(auth, 'holidays')).resolves.toBeUndefined();
    });

    it("should not find another workspace's calendar (404), nor list it", async () => {
      await create('theirs', ['2026-01-01'], authFor(OTHER_WORKSPACE));
      const notFound = { status: 404, body: { code: 'not_found', message: 'Calendar not found' } };
      await expect(kit.service.get(auth, 'theirs')).rejects.toMatchObject(notFound);
      await expect(kit.service.remove(auth, 'theirs')).rejects.toMatchObject(notFound);
      await expect(kit.service.list(auth)).resolves.toEqual({ data: [] });
    });
  });

  it('should list the calendars by name with their date range', async () => {
    await create('b', ['2026-03-01', '2026-01-01']);
    await create('a', ['2026-05-05']);
    const { data } = await kit.service.list(auth);
    expect(data).toEqual([
      expect.objectContaining({ name: 'a', date_count: 1, first_date: '2026-05-05', last_date: '2026-05-05' }),
      expect.objectContaining({ name: 'b', date_count: 2, first_date: '2026-01-01', last_date: '2026-03-01' }),
    ]);
  });
});
