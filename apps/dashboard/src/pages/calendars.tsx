import { useRef, useState } from 'preact/hooks';
import { ApiError, type CalendarListItem, deleteCalendar, getCalendar, listCalendars, putCalendar } from '../api';
import { ErrorNote, ListTable, LiveNotice, RowAction, useLoad } from '../components/common';
import { describe, Field, fieldsOf, FormError, SaveActions, TextField } from '../components/form';
import { formatTime } from '../format';

export const CALENDARS_PATH = '/settings/calendars';

/** A calendar as the page lists it: the list's item and its next dates from today. */
interface CalendarRow extends CalendarListItem {
  upcoming: string[];
  /** Dates from today on, of which `upcoming` are the first. */
  upcomingCount: number;
}

/** Dates shown per calendar in the list. */
const NEXT_DATES = 3;
/** Calendars whose dates the list reads (one `GET` each); past that only the count and range. */
const DETAILED = 100;

/** `YYYY-MM-DD` of today in the viewer's time zone. */
function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** An iCalendar file's text (a `BEGIN:VCALENDAR` line, as the API's `ical` needs), rather than a list of dates. */
function isIcal(text: string): boolean {
  return /^\s*BEGIN:VCALENDAR\s*$/im.test(text);
}

/** The body of `PUT /calendars/{name}`: `ical` for an iCalendar text, else `dates`, one a line. */
function calendarBody(text: string): { ical: string } | { dates: string[] } {
  if (isIcal(text)) {
    return { ical: text };
  }
  return { dates: dateLines(text).map((line) => line.date) };
}

/** The non-empty lines of a date list, trimmed, with their line numbers (1-based). */
function dateLines(text: string): Array<{ date: string; line: number }> {
  return text
    .split('\n')
    .map((raw, i) => ({ date: raw.trim(), line: i + 1 }))
    .filter((entry) => entry.date !== '');
}

/**
 * The API's messages about the dates, under the textarea: `dates[3]` (the fourth date sent) is
 * told by its line in the textarea; `dates` and `ical` as they are.
 */
function datesMessage(fields: Record<string, string>, text: string): string | undefined {
  const lines = isIcal(text) ? [] : dateLines(text);
  const messages = Object.entries(fields)
    .filter(([key]) => key === 'ical' || key.startsWith('dates'))
    .map(([key, message]) => {
      const index = /^dates(?:\[(\d+)\]|\.(\d+))$/.exec(key);
      if (index) {
        const line = lines[Number(index[1] ?? index[2])]?.line;
        return line === undefined ? `${key}: ${message}` : `line ${line}: ${message}`;
      }
      return key === 'dates' || key === 'ical' ? message : `${key}: ${message}`;
    });
  return messages.length > 0 ? messages.join('; ') : undefined;
}

/** The list and, for each calendar, its dates from today on (its `GET`). */
async function loadCalendars(): Promise<CalendarRow[]> {
  const data = await listCalendars();
  const from = today();
  return Promise.all(
    data.map(async (item, i): Promise<CalendarRow> => {
      if (i >= DETAILED || item.last_date === null || item.last_date < from) {
        return { ...item, upcoming: [], upcomingCount: 0 };
      }
      const calendar = await getCalendar(item.name).catch((error: unknown) => {
        // Deleted meanwhile: listed as the list said, without dates.
        if (error instanceof ApiError && error.status === 404) {
          return null;
        }
        throw error;
      });
      const next = (calendar?.dates ?? []).filter((date) => date >= from);
      return { ...item, upcoming: next.slice(0, NEXT_DATES), upcomingCount: next.length };
    }),
  );
}

/**
 * Workspace calendars: named sets of dates that schedules exclude (`except
 * holidays:de-berlin`, `schedule.exclude_calendars`). Lists each with its number of dates and the
 * next ones; creates or replaces one (`PUT`) from a list of dates, one a line, or an iCalendar
 * text (pasted or read from a file); deletes one (`409` while a job uses it, shown as said).
 */
export function CalendarsPage() {
  const list = useLoad(loadCalendars, []);
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** The text the last save sent: the API's `dates[i]` is told by its line there. */
  const [sentText, setSentText] = useState('');
  const [busy, setBusy] = useState(false);
  const nameInput = useRef<HTMLInputElement>(null);
  const fields = fieldsOf(error);
  const nameError = fields.name;
  const textError = datesMessage(fields, sentText);

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      if (name.trim() === '') {
        // No path to PUT to: said the way the API says a missing field.
        throw new ApiError(400, {
          code: 'validation_failed',
          message: 'The calendar needs a name',
          fields: { name: 'is required' },
        });
      }
      setSentText(text);
      const existed = list.data?.some((row) => row.name === name) ?? false;
      const saved = await putCalendar(name, calendarBody(text));
      const count = `${saved.dates.length} date${saved.dates.length === 1 ? '' : 's'}`;
      setNotice(
        existed
          ? `Replaced the dates of ${saved.name}: ${count}. Jobs that exclude it plan again at once.`
          : `Created ${saved.name} with ${count}.`,
      );
      setName('');
      setText('');
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function edit(row: CalendarRow) {
    setError(null);
    setNotice(null);
    try {
      const calendar = await getCalendar(row.name);
      setName(calendar.name);
      setText(calendar.dates.join('\n'));
      nameInput.current?.focus();
    } catch (err) {
      setError(err);
    }
  }

  async function remove(row: CalendarRow) {
    if (!confirm(`Delete the calendar ${row.name} and its ${row.date_count} dates?`)) {
      return;
    }
    setError(null);
    setNotice(null);
    try {
      await deleteCalendar(row.name);
      setNotice(`Deleted ${row.name}.`);
    } catch (err) {
      setError(err);
    }
    list.reload();
  }

  async function readFile(event: Event) {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    if (file) {
      setText(await file.text());
      input.value = '';
    }
  }

  return (
    <div>
      <h2>Calendars</h2>
      <p class="note">
        Named sets of dates that schedules skip, in each job’s own time zone:{' '}
        <code>every weekday at 9am except holidays:de-berlin</code> in a natural schedule, or the job’s{' '}
        <code>schedule.exclude_calendars</code> for any kind. Saving an existing name replaces its dates; the jobs that
        use it plan again at once. A calendar a job uses cannot be deleted.
      </p>
      <form class="entity-form" onSubmit={(e) => void save(e)} noValidate data-testid="calendar-form">
        <TextField
          id="calendar-name"
          label="Calendar name"
          value={name}
          onValue={setName}
          inputRef={nameInput}
          placeholder="holidays:de-berlin"
          autoComplete="off"
          error={nameError}
          hint="Lowercase words of letters, digits, - and _, joined by : (holidays:de-berlin), at most 64 characters."
        />
        <Field
          id="calendar-dates"
          label="Dates"
          error={textError}
          hint="One date a line (YYYY-MM-DD, any order), or the text of an iCalendar file (BEGIN:VCALENDAR…): each event’s days; recurring events are refused."
        >
          <textarea
            id="calendar-dates"
            rows={8}
            value={text}
            placeholder={'2026-12-24\n2026-12-25\n2026-12-26'}
            spellcheck={false}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            {...describe('calendar-dates', textError, 'calendar dates')}
          />
        </Field>
        <Field id="calendar-file" label="Or read an iCalendar file (.ics)">
          <input id="calendar-file" type="file" accept=".ics,text/calendar" onChange={(e) => void readFile(e)} />
        </Field>
        <FormError
          error={error}
          shown={['name', 'ical', ...Object.keys(fields).filter((key) => key.startsWith('dates'))]}
        />
        <SaveActions label="Save calendar" busy={busy} />
      </form>
      <LiveNotice notice={notice} />
      <ErrorNote error={list.error} />
      {list.data && (
        <ListTable
          empty={<p>No calendars.</p>}
          label="Calendars"
          testId="calendars"
          columns={['Name', 'Dates', 'Next dates', 'From – to', 'Updated']}
          rows={list.data}
          rowKey={(row) => row.name}
          cells={(row) => (
            <>
              <td>
                <code>{row.name}</code>
              </td>
              <td>{row.date_count}</td>
              <td>
                {row.upcoming.length === 0
                  ? '—'
                  : row.upcoming.join(', ') +
                    (row.upcomingCount > row.upcoming.length
                      ? ` and ${row.upcomingCount - row.upcoming.length} more`
                      : '')}
              </td>
              <td>{row.first_date === null ? '—' : `${row.first_date} – ${row.last_date}`}</td>
              <td>{formatTime(row.updated_at)}</td>
            </>
          )}
          actions={(row) => (
            <>
              <RowAction label="Edit" target={row.name} onClick={() => void edit(row)} />
              <RowAction label="Delete" target={row.name} danger onClick={() => void remove(row)} />
            </>
          )}
        />
      )}
    </div>
  );
}
