import { useStackAndReceiver } from '../utils/stack';
import { scheduledAtOf, waitFor } from '../utils/receiver';

interface RunRow {
  id: string;
  scheduled_at: string;
  status: string;
  skip_reason?: string;
  skip_note?: string;
}

/**
 * Exceptions to a schedule (issue 45), through the real stack:
 * - skipping one upcoming occurrence: its run is recorded `skipped` with the note and nothing is
 *   delivered, also when the run was already opened ahead of its instant; undoing a skip restores
 *   the occurrence; bad input is a 400 naming `at` or `note` and writes nothing;
 * - RRULE `EXDATE`: the excluded instant has no run and no delivery, its neighbours fire;
 * - workspace calendars: a job excluding today's date (its field, or `except <calendar>`) fires
 *   nothing today while a job without it does, and fires at once when today is removed from the
 *   calendar; unknown calendars are a 400 naming the field.
 */
describe('exceptions to a schedule', () => {
  const e2e = useStackAndReceiver({ config: { scheduler: { prepare_ahead: '8s' } } });

  beforeAll(async () => {
    // A long lead, so a run exists well before its instant (prepared ahead).
  });

  async function createJob(name: string, expr: string): Promise<{ id: string; next_runs: string[] }> {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name,
      schedule: { expr },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/${name}` } },
      timeout: '5s',
    });
    expect(created.status).toBe(201);
    return (await e2e.api('GET', `/api/v1/jobs/${created.body.id}`)).body;
  }

  const runsOf = async (jobId: string) =>
    (await e2e.api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`)).body.data as RunRow[];
  const runAt = async (jobId: string, at: string) => (await runsOf(jobId)).find((r) => r.scheduled_at === at);
  const skipPath = (jobId: string, at: string) => `/api/v1/jobs/${jobId}/occurrences/${at}/skip`;

  it('should record a skipped run with the note and deliver nothing; an undone skip fires', async () => {
    const job = await createJob('every-3s', 'every 3 seconds');
    // Far enough ahead that neither run is opened yet when the skips are written.
    const [skipped, restored] = job.next_runs.slice(3, 5);

    const skip = await e2e.api('POST', skipPath(job.id, skipped), { note: 'migration night' });
    expect(skip.status).toBe(200);
    expect(skip.body).toMatchObject({ at: skipped, note: 'migration night' });
    expect((await e2e.api('POST', skipPath(job.id, restored), { note: 'maybe' })).status).toBe(200);
    expect((await e2e.api('DELETE', skipPath(job.id, restored))).status).toBe(204);
    // Undone once: a second undo finds nothing.
    expect((await e2e.api('DELETE', skipPath(job.id, restored))).status).toBe(404);

    const shown = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(shown.skipped_occurrences).toEqual([expect.objectContaining({ at: skipped, note: 'migration night' })]);
    expect(shown.version).toBe(1);

    await waitFor(() => e2e.receiver.forJob(job.id).some((r) => scheduledAtOf(r) > Date.parse(restored)), 40_000);
    const run = await waitFor(async () => {
      const found = await runAt(job.id, skipped);
      return found && found.status !== 'running' ? found : null;
    });
    expect(run).toMatchObject({ status: 'skipped', skip_reason: 'occurrence_skipped', skip_note: 'migration night' });
    const delivered = e2e.receiver.forJob(job.id).map(scheduledAtOf);
    expect(delivered).not.toContain(Date.parse(skipped));
    expect(delivered).toContain(Date.parse(restored));
    expect((await runAt(job.id, restored))?.status).toBe('succeeded');

    const detail = (await e2e.api('GET', `/api/v1/runs/${run.id}`)).body;
    expect(detail).toMatchObject({ skip_reason: 'occurrence_skipped', skip_note: 'migration night', attempts: [] });
    const audit = (await e2e.api('GET', `/api/v1/audit-log?target=${job.id}`)).body.data as Array<{ action: string }>;
    expect(audit.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['job.skip_occurrence', 'job.unskip_occurrence']),
    );
    await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);
  });

  it('should skip an occurrence whose run is already opened ahead of its instant', async () => {
    const job = await createJob('every-20s', 'every 20 seconds');
    // The run of the next occurrence is opened up to 8 s before it (prepare_ahead).
    const opened = await waitFor(
      async () =>
        (await runsOf(job.id)).find((r) => r.status === 'running' && Date.parse(r.scheduled_at) > Date.now() + 1_000),
      30_000,
    );
    expect((await e2e.api('POST', skipPath(job.id, opened.scheduled_at), { note: 'holiday' })).status).toBe(200);

    const run = await waitFor(async () => {
      const found = await runAt(job.id, opened.scheduled_at);
      return found && found.status !== 'running' ? found : null;
    });
    expect(run).toMatchObject({
      id: opened.id,
      status: 'skipped',
      skip_reason: 'occurrence_skipped',
      skip_note: 'holiday',
    });
    expect(e2e.receiver.forJob(job.id).map(scheduledAtOf)).not.toContain(Date.parse(opened.scheduled_at));
    await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);
  });

  it('should refuse what is not an upcoming occurrence with 400 naming the field, writing nothing', async () => {
    const job = await createJob('daily', 'every day at 09:00');
    const next = job.next_runs[0];
    const off = new Date(Date.parse(next) + 60_000).toISOString();

    const notOccurrence = await e2e.api('POST', skipPath(job.id, off), { note: 'x' });
    expect(notOccurrence.status).toBe(400);
    expect(notOccurrence.body.error.fields.at).toContain(job.next_runs[1]);
    const past = await e2e.api('POST', skipPath(job.id, '2020-01-01T09:00:00.000Z'), {});
    expect(past.status).toBe(400);
    expect(past.body.error.fields.at).toMatch(/passed/);
    const malformed = await e2e.api('POST', skipPath(job.id, 'tomorrow'), {});
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.fields).toHaveProperty('at');
    const longNote = await e2e.api('POST', skipPath(job.id, next), { note: 'x'.repeat(501) });
    expect(longNote.status).toBe(400);
    expect(longNote.body.error.fields).toHaveProperty('note');
    expect((await e2e.api('POST', skipPath('job_01ARZ3NDEKTSV4RRFFQ69G5FAV', next), {})).status).toBe(404);
    expect((await e2e.api('DELETE', skipPath(job.id, next))).status).toBe(404);

    const shown = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(shown.skipped_occurrences).toEqual([]);

    // A skip without a note is allowed; its note is empty.
    const bare = await e2e.api('POST', skipPath(job.id, next), {});
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ at: next, note: '' });
  });

  it('should not fire an RRULE occurrence named by EXDATE, and fire its neighbours', async () => {
    // DTSTART on a recent whole minute: the rule's instances are the multiples of 3 s from it.
    const dtstart = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
    const excluded = Math.ceil((Date.now() + 9_000) / 3_000) * 3_000;
    const basic = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d+/g, '');
    const job = await createJob(
      'exdate',
      `DTSTART:${basic(dtstart)}\nRRULE:FREQ=SECONDLY;INTERVAL=3\nEXDATE:${basic(excluded)}`,
    );
    expect(job.next_runs.map(Date.parse)).not.toContain(excluded);
    await waitFor(() => e2e.receiver.forJob(job.id).some((r) => scheduledAtOf(r) > excluded + 3_000), 30_000);
    await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);
    const delivered = e2e.receiver.forJob(job.id).map(scheduledAtOf);
    expect(delivered).toEqual(expect.arrayContaining([excluded - 3_000, excluded + 3_000]));
    expect(delivered).not.toContain(excluded);
    expect((await runsOf(job.id)).map((r) => Date.parse(r.scheduled_at))).not.toContain(excluded);
  });

  it('should fire nothing on a calendar’s dates, by the job field or `except <calendar>`', async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    // Today and tomorrow (UTC), so a test that runs across midnight still sees an excluded day.
    const created = await e2e.api('POST', '/api/v1/calendars', { name: 'closed:today', dates: [day(0), day(1)] });
    expect(created.status).toBe(201);
    const sink = (name: string) => ({ kind: 'webhook', config: { url: `${e2e.receiver.url}/${name}` } });
    const byField = await e2e.api('POST', '/api/v1/jobs', {
      name: 'by-field',
      schedule: { expr: 'every 2 seconds', exclude_calendars: ['closed:today'] },
      sink: sink('by-field'),
    });
    expect(byField.status).toBe(201);
    expect(byField.body.schedule).toMatchObject({ exclude_calendars: ['closed:today'] });
    expect(byField.body.schedule.description).toContain('except the days of closed:today');
    const byName = await e2e.api('POST', '/api/v1/jobs', {
      name: 'by-name',
      schedule: { expr: 'every 2 seconds except closed:today' },
      sink: sink('by-name'),
    });
    expect(byName.status).toBe(201);
    const control = await createJob('control', 'every 2 seconds');

    for (const id of [byField.body.id, byName.body.id]) {
      const shown = (await e2e.api('GET', `/api/v1/jobs/${id}`)).body;
      expect(Date.parse(shown.next_run_at)).toBeGreaterThanOrEqual(Date.parse(`${day(2)}T00:00:00Z`));
    }
    await waitFor(() => e2e.receiver.forJob(control.id).length >= 3, 30_000);
    expect(e2e.receiver.forJob(byField.body.id)).toEqual([]);
    expect(e2e.receiver.forJob(byName.body.id)).toEqual([]);
    expect(await runsOf(byField.body.id)).toEqual([]);

    // Today's date removed: the jobs plan again at once and fire today (not after tomorrow's wake).
    const replaced = await e2e.api('PUT', '/api/v1/calendars/closed:today', { dates: [day(1)] });
    expect(replaced.status).toBe(200);
    await waitFor(
      () => e2e.receiver.forJob(byField.body.id).length > 0 && e2e.receiver.forJob(byName.body.id).length > 0,
      20_000,
    );

    // In use: it cannot be deleted.
    const refused = await e2e.api('DELETE', '/api/v1/calendars/closed:today');
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(byName.body.id);
    for (const id of [byField.body.id, byName.body.id, control.id]) {
      expect((await e2e.api('DELETE', `/api/v1/jobs/${id}`)).status).toBe(204);
    }
    expect((await e2e.api('DELETE', '/api/v1/calendars/closed:today')).status).toBe(204);
  });

  it('should refuse unknown calendars and bad calendar bodies with 400 naming the field, writing nothing', async () => {
    const base = { name: 'x', sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/x` } } };
    const unknownField = await e2e.api('POST', '/api/v1/jobs', {
      ...base,
      schedule: { expr: '0 9 * * *', exclude_calendars: ['holidays:nowhere'] },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.fields['schedule.exclude_calendars']).toContain('holidays:nowhere');
    const unknownName = await e2e.api('POST', '/api/v1/jobs', {
      ...base,
      schedule: { expr: 'every weekday at 9am except holidays:nowhere' },
    });
    expect(unknownName.status).toBe(400);
    expect(unknownName.body.error.fields['schedule.expr']).toContain('holidays:nowhere');

    const badDate = await e2e.api('POST', '/api/v1/calendars', { name: 'bad:dates', dates: ['2026-02-30'] });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error.fields).toHaveProperty(['dates[0]']);
    const both = await e2e.api('POST', '/api/v1/calendars', { name: 'bad:both', dates: [], ical: 'BEGIN:VCALENDAR' });
    expect(both.status).toBe(400);
    const recurring = await e2e.api('POST', '/api/v1/calendars', {
      name: 'bad:ical',
      ical: 'BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nRRULE:FREQ=YEARLY\nEND:VEVENT\nEND:VCALENDAR\n',
    });
    expect(recurring.status).toBe(400);
    expect(recurring.body.error.fields.ical).toMatch(/recurring/);
    const badName = await e2e.api('POST', '/api/v1/calendars', { name: 'Holidays DE', dates: [] });
    expect(badName.status).toBe(400);
    expect(badName.body.error.fields).toHaveProperty('name');
    expect((await e2e.api('GET', '/api/v1/calendars')).body.data).toEqual([]);
  });
});
