import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError, ValidationFailedError } from '@svc/common';
import { AuditRepository, CalendarsRepository, Transactions, type Tx } from '@svc/persistence';
import { JobLifecycle } from '@svc/orchestration';
import { calendarDay, icalDates, splitCalendarExclusions } from '@svc/schedule';
import type { AuthContext } from '../auth/auth.decorators';
import { CALENDAR_MAX_DATES, type CalendarDatesDto, type CreateCalendarDto } from './dto/calendar.dto';
import { toCalendarListItem, toCalendarResponse } from './calendars.mapper';

/** Jobs named in a delete's `409` at most. */
const JOBS_NAMED = 10;

/**
 * Workspace calendars: named sets of dates that schedules exclude. A job reads its
 * calendars' dates at every plan, so a change applies from each job's next wake; a calendar a job
 * uses cannot be deleted (`409`).
 */
@Injectable()
export class CalendarsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly calendars: CalendarsRepository,
    private readonly audit: AuditRepository,
    private readonly lifecycle: JobLifecycle,
  ) {}

  async list(auth: AuthContext) {
    return { data: (await this.calendars.list(auth.workspaceId)).map(toCalendarListItem) };
  }

  async get(auth: AuthContext, name: string) {
    const calendar = await this.calendars.get(auth.workspaceId, name);
    if (!calendar) {
      throw new NotFoundError('Calendar');
    }
    return toCalendarResponse(calendar);
  }

  /** `POST /calendars`: `409` when the name is taken. */
  async create(auth: AuthContext, dto: CreateCalendarDto) {
    const dates = datesOf(dto);
    return this.transactions.run(async (tx) => {
      await this.calendars.lockWorkspace(auth.workspaceId, tx);
      if (await this.calendars.get(auth.workspaceId, dto.name, tx)) {
        throw new ConflictError(
          `A calendar named ${dto.name} exists; replace it with PUT /api/v1/calendars/${dto.name}`,
        );
      }
      return this.write(auth, dto.name, dates, tx);
    });
  }

  /**
   * `PUT /calendars/{name}`: creates or replaces its dates. The jobs that use it plan again at once
   * (`JobLifecycle.scheduleDataChanged`), so a date removed fires today, not after the next wake.
   */
  async put(auth: AuthContext, name: string, dto: CalendarDatesDto) {
    const dates = datesOf(dto);
    const { answer, notify } = await this.transactions.run(async (tx) => {
      await this.calendars.lockWorkspace(auth.workspaceId, tx);
      const written = await this.write(auth, name, dates, tx);
      const users = written.created ? [] : await this.usersOf(auth.workspaceId, name, tx);
      const told = await this.lifecycle.scheduleDataChanged(
        auth.workspaceId,
        users.map((job) => job.id),
        tx,
      );
      return { answer: written, notify: told };
    });
    notify();
    return answer;
  }

  /** `DELETE /calendars/{name}`: `409` naming the jobs that use it. */
  async remove(auth: AuthContext, name: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.calendars.lockWorkspace(auth.workspaceId, tx);
      if (!(await this.calendars.get(auth.workspaceId, name, tx))) {
        throw new NotFoundError('Calendar');
      }
      const users = await this.usersOf(auth.workspaceId, name, tx);
      if (users.length > 0) {
        const named = users.slice(0, JOBS_NAMED).map((job) => `${job.name} (${job.id})`);
        throw new ConflictError(
          `The calendar ${name} is used by ${users.length} job(s): ${named.join(', ')}${users.length > JOBS_NAMED ? ', …' : ''}; remove it from their schedules first`,
        );
      }
      await this.calendars.delete(auth.workspaceId, name, tx);
      await this.audit.insert(auth.workspaceId, { actor: auth.actor, action: 'calendar.delete', target: name }, tx);
    });
  }

  /** The jobs that use the calendar; the text match of a natural expression is confirmed by its parse. */
  private async usersOf(workspaceId: string, name: string, tx: Tx) {
    return (await this.calendars.jobsUsing(workspaceId, name, 10_000, tx)).filter(
      (job) =>
        job.excludeCalendars.includes(name) ||
        (splitCalendarExclusions(job.scheduleExpr)?.calendars.some((c) => c.name === name) ?? false),
    );
  }

  private async write(auth: AuthContext, name: string, dates: string[], tx: Tx) {
    const created = await this.calendars.upsert(auth.workspaceId, name, dates, tx);
    await this.audit.insert(
      auth.workspaceId,
      {
        actor: auth.actor,
        action: created ? 'calendar.create' : 'calendar.update',
        target: name,
        details: { dates: dates.length },
      },
      tx,
    );
    const calendar = (await this.calendars.get(auth.workspaceId, name, tx))!;
    return { created, calendar: toCalendarResponse(calendar) };
  }
}

/** The body's dates (a list or an iCalendar file), checked, ascending and unique; else `400` naming the field. */
function datesOf(dto: CalendarDatesDto): string[] {
  // `null` counts as absent (class-validator's IsOptional lets it through).
  if (((dto.dates ?? null) === null) === ((dto.ical ?? null) === null)) {
    throw new ValidationFailedError({
      dates: 'give exactly one of dates (a list of YYYY-MM-DD) and ical (an iCalendar file)',
    });
  }
  let dates: string[];
  if (dto.ical !== undefined && dto.ical !== null) {
    const parsed = icalDates(dto.ical);
    if (!parsed.ok) {
      throw new ValidationFailedError({ ical: parsed.error });
    }
    dates = parsed.dates;
  } else {
    const fields: Record<string, string> = {};
    dto.dates!.forEach((date, i) => {
      if (calendarDay(date) === null) {
        fields[`dates[${i}]`] = `${date} is not a date`;
      }
    });
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
    dates = [...new Set(dto.dates!)].sort();
  }
  if (dates.length > CALENDAR_MAX_DATES) {
    throw new ValidationFailedError({
      [dto.ical !== undefined ? 'ical' : 'dates']: `at most ${CALENDAR_MAX_DATES} dates`,
    });
  }
  return dates;
}
