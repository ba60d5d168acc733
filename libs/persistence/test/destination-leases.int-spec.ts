import { DestinationsRepository, WorkspacesRepository } from '@svc/persistence';
import { useScratchDatabase } from './scratch-database';

/**
 * The lease statement of destination limits (issue 46) under concurrency: many connections racing
 * for few slots never take more than the limit, a per-minute window counts starts, a lease left by
 * a dead worker expires, and a `Retry-After` hold stops every taker until it ends.
 */
describe('DestinationsRepository leases', () => {
  const scratch = useScratchDatabase('destinations', { poolSize: 24 });
  let destinations: DestinationsRepository;
  let workspaceId: string;
  let otherWorkspaceId: string;

  beforeAll(async () => {
    destinations = new DestinationsRepository(scratch.ds);
    const workspaces = new WorkspacesRepository(scratch.ds);
    workspaceId = (await workspaces.create({ name: 'W', slug: 'dest-a', plan: 'self_hosted' })).id;
    otherWorkspaceId = (await workspaces.create({ name: 'V', slug: 'dest-b', plan: 'self_hosted' })).id;
  });

  const limits = (maxInFlight: number | null, perMinute: number | null, on429: 'pause_destination' | null = null) => ({
    maxInFlight,
    perMinute,
    on429,
  });

  it('should answer unlimited for a destination without a limits row', async () => {
    expect(await destinations.acquire(workspaceId, 'free.example.com:443', 'run_a:0', 60_000, 1_000)).toEqual({
      kind: 'unlimited',
    });
  });

  it('should never grant more leases than max_in_flight to concurrent takers, and grant again on release', async () => {
    await destinations.upsert(workspaceId, 'busy.example.com:443', limits(3, null));
    // 40 takers on 20 connections at once: exactly 3 leases.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        destinations.acquire(workspaceId, 'busy.example.com:443', `run_${i}:0`, 60_000, 1_000),
      ),
    );
    const taken = answers.map((a, i) => ({ a, i })).filter(({ a }) => a.kind === 'taken');
    expect(taken).toHaveLength(3);
    const waits = answers.filter((a) => a.kind === 'wait');
    expect(waits).toHaveLength(37);
    expect(waits.every((w) => w.kind === 'wait' && w.reason === 'limit')).toBe(true);
    expect((await destinations.get(workspaceId, 'busy.example.com:443'))?.inFlight).toBe(3);

    // Taking it again under the same key replaces the lease (a re-executed activity).
    const again = await destinations.acquire(
      workspaceId,
      'busy.example.com:443',
      `run_${taken[0]!.i}:0`,
      60_000,
      1_000,
    );
    expect(again.kind).toBe('taken');
    expect((await destinations.get(workspaceId, 'busy.example.com:443'))?.inFlight).toBe(3);

    await destinations.release(workspaceId, 'busy.example.com:443', `run_${taken[0]!.i}:0`, null);
    const next = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        destinations.acquire(workspaceId, 'busy.example.com:443', `run_x${i}:0`, 60_000, 1_000),
      ),
    );
    expect(next.filter((a) => a.kind === 'taken')).toHaveLength(1);
    // Another workspace's destination of the same name counts apart (tenant walls).
    await destinations.upsert(otherWorkspaceId, 'busy.example.com:443', limits(1, null));
    expect((await destinations.acquire(otherWorkspaceId, 'busy.example.com:443', 'run_o:0', 60_000, 1_000)).kind).toBe(
      'taken',
    );
  });

  it('should hold the in-flight count at the limit through many rounds of take and release', async () => {
    await destinations.upsert(workspaceId, 'rounds.example.com:443', limits(2, null));
    let holders = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        for (let round = 0; round < 5;) {
          const answer = await destinations.acquire(
            workspaceId,
            'rounds.example.com:443',
            `run_r${i}:${round}`,
            60_000,
            1_000,
          );
          if (answer.kind !== 'taken') {
            await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
            continue;
          }
          holders += 1;
          most = Math.max(most, holders);
          await new Promise((resolve) => setTimeout(resolve, 5));
          holders -= 1;
          await destinations.release(workspaceId, 'rounds.example.com:443', `run_r${i}:${round}`, null);
          round += 1;
        }
      }),
    );
    expect(most).toBe(2);
    expect((await destinations.get(workspaceId, 'rounds.example.com:443'))?.inFlight).toBe(0);
  });

  it('should count starts per minute and say when the window frees a start', async () => {
    await destinations.upsert(workspaceId, 'paced.example.com:443', limits(null, 5));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        destinations.acquire(workspaceId, 'paced.example.com:443', `run_p${i}:0`, 60_000, 1_000),
      ),
    );
    expect(answers.filter((a) => a.kind === 'taken')).toHaveLength(5);
    // Released leases still count in the window.
    for (let i = 0; i < 12; i += 1) {
      await destinations.release(workspaceId, 'paced.example.com:443', `run_p${i}:0`, null);
    }
    const later = await destinations.acquire(workspaceId, 'paced.example.com:443', 'run_p99:0', 60_000, 1_000);
    expect(later.kind).toBe('wait');
    if (later.kind === 'wait') {
      // The oldest start leaves the window about a minute after it was taken.
      expect(later.retryAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
      expect(later.retryAt.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);
    }
    expect((await destinations.get(workspaceId, 'paced.example.com:443'))?.startsLastMinute).toBe(5);
  });

  it('should stop counting a lease once it expires (a worker that died mid-request)', async () => {
    await destinations.upsert(workspaceId, 'lost.example.com:443', limits(1, null));
    expect((await destinations.acquire(workspaceId, 'lost.example.com:443', 'run_dead:0', 300, 1_000)).kind).toBe(
      'taken',
    );
    const blocked = await destinations.acquire(workspaceId, 'lost.example.com:443', 'run_next:0', 60_000, 5_000);
    expect(blocked.kind).toBe('wait');
    if (blocked.kind === 'wait') {
      // The expiring lease says when to ask again, sooner than the poll.
      expect(blocked.retryAt.getTime()).toBeLessThan(Date.now() + 1_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await destinations.acquire(workspaceId, 'lost.example.com:443', 'run_next:0', 60_000, 5_000)).kind).toBe(
      'taken',
    );
  });

  it('should hold the destination for every taker after a Retry-After under pause_destination, and not without it', async () => {
    await destinations.upsert(workspaceId, 'held.example.com:443', limits(10, null, 'pause_destination'));
    expect((await destinations.acquire(workspaceId, 'held.example.com:443', 'run_h1:0', 60_000, 1_000)).kind).toBe(
      'taken',
    );
    const heldUntil = await destinations.release(workspaceId, 'held.example.com:443', 'run_h1:0', 1_500);
    expect(heldUntil).not.toBeNull();
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        destinations.acquire(workspaceId, 'held.example.com:443', `run_h${i + 2}:0`, 60_000, 1_000),
      ),
    );
    expect(answers.every((a) => a.kind === 'wait' && a.reason === 'held')).toBe(true);
    expect((await destinations.get(workspaceId, 'held.example.com:443'))?.heldUntil?.getTime()).toBe(
      heldUntil!.getTime(),
    );
    // A shorter Retry-After never shortens a hold.
    await destinations.acquire(workspaceId, 'held.example.com:443', 'run_h1:1', 60_000, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await destinations.acquire(workspaceId, 'held.example.com:443', 'run_h9:0', 60_000, 1_000)).kind).toBe(
      'taken',
    );

    await destinations.upsert(workspaceId, 'plain.example.com:443', limits(10, null));
    await destinations.acquire(workspaceId, 'plain.example.com:443', 'run_q:0', 60_000, 1_000);
    expect(await destinations.release(workspaceId, 'plain.example.com:443', 'run_q:0', 5_000)).toBeNull();
    expect((await destinations.acquire(workspaceId, 'plain.example.com:443', 'run_q2:0', 60_000, 1_000)).kind).toBe(
      'taken',
    );
  });

  it('should list, replace and delete limits, keeping each workspace apart, and gauge them', async () => {
    expect(await destinations.upsert(workspaceId, 'crud.example.com:443', limits(4, 100))).toBe(true);
    expect(await destinations.upsert(workspaceId, 'crud.example.com:443', limits(5, null))).toBe(false);
    const row = await destinations.get(workspaceId, 'crud.example.com:443');
    expect(row).toMatchObject({
      maxInFlight: 5,
      perMinute: null,
      on429: null,
      inFlight: 0,
      waiting: 0,
      heldUntil: null,
    });
    expect(await destinations.get(otherWorkspaceId, 'crud.example.com:443')).toBeNull();
    expect((await destinations.list(workspaceId)).map((d) => d.destination)).toContain('crud.example.com:443');
    expect(await destinations.configured(otherWorkspaceId)).toEqual(['busy.example.com:443']);
    const gauges = await destinations.gauges();
    expect(gauges.find((g) => g.destination === 'busy.example.com:443')?.inFlight).toBe(4);
    expect(await destinations.delete(workspaceId, 'crud.example.com:443')).toBe(true);
    expect(await destinations.delete(workspaceId, 'crud.example.com:443')).toBe(false);
  });
});
