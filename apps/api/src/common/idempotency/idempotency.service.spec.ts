import { authFor, InMemoryDatabase, OTHER_WORKSPACE } from '../../../../../test/kit';
import { IdempotencyService } from './idempotency.service';

/**
 * IdempotencyService over the kit's idempotency records: the same key and body replays the first
 * answer (key order in the body does not matter), another body is 409 idempotency_conflict, a
 * failed first request releases its key, keys are per workspace and scope, and a malformed key is
 * 400.
 */
describe('IdempotencyService', () => {
  const auth = authFor();
  const SCOPE = 'POST /api/v1/things';
  let db: InMemoryDatabase;
  let service: IdempotencyService;
  let created: number;
  const create = async () => ({ id: `thing_${++created}` });

  beforeEach(() => {
    db = new InMemoryDatabase();
    service = new IdempotencyService(db.repositories.idempotency);
    created = 0;
  });

  it('should run the work every time without a key', async () => {
    await service.execute(auth, SCOPE, undefined, {}, create);
    await service.execute(auth, SCOPE, undefined, {}, create);
    expect(created).toBe(2);
    expect(db.idempotencyRecords.size).toBe(0);
  });

  it('should replay the first answer for the same key and body, in any key order', async () => {
    const first = await service.execute(auth, SCOPE, 'k-1', { a: 1, b: [1, { c: 2, d: 3 }] }, create);
    const again = await service.execute(auth, SCOPE, 'k-1', { b: [1, { d: 3, c: 2 }], a: 1 }, create);
    expect(again).toEqual(first);
    expect(created).toBe(1);
  });

  it('should refuse the same key with another body (409 idempotency_conflict)', async () => {
    await service.execute(auth, SCOPE, 'k-1', { a: 1 }, create);
    await expect(service.execute(auth, SCOPE, 'k-1', { a: 2 }, create)).rejects.toMatchObject({
      status: 409,
      body: { code: 'idempotency_conflict' },
    });
    expect(created).toBe(1);
  });

  it('should release the key when the first request fails, so a retry runs again', async () => {
    await expect(
      service.execute(auth, SCOPE, 'k-1', {}, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(db.idempotencyRecords.size).toBe(0);
    await expect(service.execute(auth, SCOPE, 'k-1', {}, create)).resolves.toEqual({ id: 'thing_1' });
  });

  it('should keep keys apart per workspace and per scope', async () => {
    await service.execute(auth, SCOPE, 'k-1', {}, create);
    await service.execute(authFor(OTHER_WORKSPACE), SCOPE, 'k-1', {}, create);
    await service.execute(auth, 'POST /api/v1/others', 'k-1', {}, create);
    expect(created).toBe(3);
  });

  it('should wait for a first request still in flight and answer as it did', async () => {
    let finish!: () => void;
    const slow = service.execute(auth, SCOPE, 'k-1', {}, async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return create();
    });
    await new Promise((resolve) => setImmediate(resolve));
    const duplicate = service.execute(auth, SCOPE, 'k-1', {}, create);
    finish();
    const [first, second] = await Promise.all([slow, duplicate]);
    expect(second).toEqual(first);
    expect(created).toBe(1);
  });

  it('should store what a replay codec makes of the answer, and replay through it', async () => {
    const codec = {
      store: (result: { id: string }) => ({ sealed: result.id.toUpperCase() }),
      replay: (stored: unknown) => ({ id: (stored as { sealed: string }).sealed.toLowerCase() }),
    };
    await service.execute(auth, SCOPE, 'k-1', {}, create, codec);
    expect([...db.idempotencyRecords.values()][0].responseBody).toEqual({ sealed: 'THING_1' });
    await expect(service.execute(auth, SCOPE, 'k-1', {}, create, codec)).resolves.toEqual({ id: 'thing_1' });
  });

  it('should refuse a key that is not 1 to 255 visible ASCII characters (400 naming the header)', async () => {
    for (const key of ['', 'with space', 'ü', 'x'.repeat(256)]) {
      await expect(service.execute(auth, SCOPE, key, {}, create)).rejects.toMatchObject({
        status: 400,
        body: { fields: { 'Idempotency-Key': expect.any(String) } },
      });
    }
    expect(created).toBe(0);
  });
});
