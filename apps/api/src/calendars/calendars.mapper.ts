import type { CalendarEntity } from '@svc/persistence';

export function toCalendarResponse(calendar: CalendarEntity) {
  return {
    name: calendar.name,
    dates: calendar.dates,
    created_at: calendar.createdAt.toISOString(),
    updated_at: calendar.updatedAt.toISOString(),
  };
}

export function toCalendarListItem(calendar: CalendarEntity) {
  return {
    name: calendar.name,
    date_count: calendar.dates.length,
    first_date: calendar.dates[0] ?? null,
    last_date: calendar.dates[calendar.dates.length - 1] ?? null,
    created_at: calendar.createdAt.toISOString(),
    updated_at: calendar.updatedAt.toISOString(),
  };
}
