import { authFor, OTHER_WORKSPACE, serviceOverKit } from '../../../../../test/kit';
import { MAX_UPCOMING_SKIPS, OccurrenceSkipsService } from './occurrence-skips.service';

/**
 * OccurrenceSkipsService over the in-memory kit: only an upcoming occurrence of the job's own
 * schedule can be skipped, at most 100 at once; a skip and its undo are audited; other workspaces'
 * jobs are not found.
 */
const HOUR = 3_600_000;

describe('OccurrenceSkipsService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db) => {
    const { transactions, jobs, audit, calendars } = db.repositories;
    return new OccurrenceSkipsService(transactions, jobs, audit, calendars);
  });

  /** The top of an hour `n` hours ahead: an occurrence of the kit's hourly job (anchored at 00:00). */
  const hoursAhead = (n: number) => new Date((Math.floor(Date.now() / HOUR) + n) * HOUR);

  it('should mark an upcoming occurrence skipped with its note, and audit it', async () => {
    const job = kit.db.addJob('active');
    const at = hoursAhead(2);
    const skip = await kit.service.skip(auth, job.id, at, 'maintenance');
    expect(skip).toEqual({ at: at.toISOString(), note: 'maintenance', created_at: expect.any(String) });
    expect(kit.db.stored(job.id)!.occurrenceSkips).toEqual({
      [at.toISOString()]: { note: 'maintenance', created_at: skip.created_at },
    });
    expect(kit.db.audited()).toEqual([
      {
        actor: auth.actor,
        action: 'job.skip_occurrence',
        target: job.id,
        details: { at: at.toISOString(), note: 'maintenance' },
      },
    ]);
  });

  it('should refuse an instant that has passed, or one that is not an occurrence (400 naming at)', async () => {
    const job = kit.db.addJob('active');
    await expect(kit.service.skip(auth, job.id, hoursAhead(-1), 'x')).rejects.toMatchObject({
      status: 400,
      body: { code: 'validation_failed', fields: { at: expect.stringContaining('has passed') } },
    });
    const between = new Date(hoursAhead(2).getTime() + 60_000);
    await expect(kit.service.skip(auth, job.id, between, 'x')).rejects.toMatchObject({
      status: 400,
      body: { fields: { at: expect.stringContaining(`the next one from it is ${hoursAhead(3).toISOString()}`) } },
    });
    expect(kit.db.stored(job.id)!.occurrenceSkips ?? {}).toEqual({});
    expect(kit.db.tables.audit).toEqual([]);
  });

  it(`should hold at most ${MAX_UPCOMING_SKIPS} upcoming skips, yet let one of them be skipped again`, async () => {
    const job = kit.db.addJob('active');
    for (let n = 1; n <= MAX_UPCOMING_SKIPS; n += 1) {
      await kit.service.skip(auth, job.id, hoursAhead(n), `s${n}`);
    }
    await expect(kit.service.skip(auth, job.id, hoursAhead(MAX_UPCOMING_SKIPS + 1), 'one more')).rejects.toMatchObject({
      status: 400,
      body: { fields: { at: expect.stringContaining(`already skips ${MAX_UPCOMING_SKIPS}`) } },
    });
    await expect(kit.service.skip(auth, job.id, hoursAhead(1), 'new note')).resolves.toMatchObject({
      note: 'new note',
    });
  });

  it('should undo a skip and audit it; undoing one that is not skipped is 404', async () => {
    const job = kit.db.addJob('active');
    const at = hoursAhead(2);
    await kit.service.skip(auth, job.id, at, 'x');
    await kit.service.unskip(auth, job.id, at);
    expect(kit.db.stored(job.id)!.occurrenceSkips).toEqual({});
    expect(kit.db.audited()[1]).toEqual({
      actor: auth.actor,
      action: 'job.unskip_occurrence',
      target: job.id,
      details: { at: at.toISOString() },
    });
    await expect(kit.service.unskip(auth, job.id, at)).rejects.toMatchObject({
      status: 404,
      body: { message: 'Skipped occurrence not found' },
    });
    expect(kit.db.audited()).toHaveLength(2);
  });

  it("should not find another workspace's job (404), nor mark it", async () => {
    const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
    await expect(kit.service.skip(auth, theirs.id, hoursAhead(2), 'x')).rejects.toMatchObject({
      status: 404,
      body: { message: 'Job not found' },
    });
    await expect(kit.service.unskip(auth, theirs.id, hoursAhead(2))).rejects.toMatchObject({ status: 404 });
    expect(kit.db.stored(theirs.id)!.occurrenceSkips ?? {}).toEqual({});
  });
});
