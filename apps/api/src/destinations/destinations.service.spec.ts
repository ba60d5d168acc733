import type { DestinationLimitRow, DestinationLimitSettings, DestinationsRepository } from '@svc/persistence';
import { authFor, type InMemoryDatabase, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import { DestinationsService } from './destinations.service';
import type { DestinationLimitsDto } from './dto/destination-limits.dto';

/**
 * `DestinationsRepository` over a kit table keyed by workspace and destination, rolled back with
 * the kit's transactions; no leases or waiting runs (the worker's side), so those read as zero.
 */
function destinationsStore(db: InMemoryDatabase) {
  const rows = () => db.table<DestinationLimitRow & { workspaceId: string }>('destination_limits');
  const read = ({ workspaceId: _ws, ...row }: DestinationLimitRow & { workspaceId: string }) => ({ ...row });
  return {
    list: async (workspaceId: string) =>
      [...rows().values()]
        .filter((row) => row.workspaceId === workspaceId)
        .sort((a, b) => (a.destination < b.destination ? -1 : 1))
        .map(read),
    get: async (workspaceId: string, destination: string) => {
      const row = rows().get(`${workspaceId}/${destination}`);
      return row ? read(row) : null;
    },
    upsert: async (workspaceId: string, destination: string, settings: DestinationLimitSettings) => {
      const key = `${workspaceId}/${destination}`;
      const existing = rows().get(key);
      const now = new Date();
      rows().set(key, {
        workspaceId,
        destination,
        inFlight: 0,
        waiting: 0,
        heldUntil: null,
        startsLastMinute: 0,
        createdAt: existing?.createdAt ?? now,
        ...settings,
        updatedAt: now,
      });
      return !existing;
    },
    delete: async (workspaceId: string, destination: string) => rows().delete(`${workspaceId}/${destination}`),
  };
}

/**
 * DestinationsService over the in-memory kit: limits created and replaced (`created` tells which),
 * a body that sets none as `400` with `fields`, the workspace's own destinations only (`404`
 * otherwise), and an audit entry for every write in the same transaction.
 */
describe('DestinationsService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db) => {
    const { transactions, audit } = db.repositories;
    return new DestinationsService(transactions, destinationsStore(db) as unknown as DestinationsRepository, audit);
  });
  const limits = (dto: Partial<DestinationLimitsDto>) => dto as DestinationLimitsDto;

  describe('put', () => {
    it('should create the limits, answer created and audit destination.create', async () => {
      const answer = await kit.service.put(auth, 'api.example.com', limits({ max_in_flight: 2 }));
      expect(answer).toEqual({
        created: true,
        destination: {
          destination: 'api.example.com',
          max_in_flight: 2,
          per_minute: null,
          on_429: null,
          in_flight: 0,
          waiting: 0,
          held_until: null,
          starts_last_minute: 0,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
      expect(kit.db.audited()).toEqual([
        {
          actor: auth.actor,
          action: 'destination.create',
          target: 'api.example.com',
          details: { max_in_flight: 2, per_minute: null, on_429: null },
        },
      ]);
    });

    it('should replace every limit on a second put (absent ones cleared) and audit destination.update', async () => {
      await kit.service.put(auth, 'api.example.com', limits({ max_in_flight: 2, per_minute: 60 }));
      const answer = await kit.service.put(auth, 'api.example.com', limits({ on_429: 'pause_destination' }));
      expect(answer).toMatchObject({
        created: false,
        destination: { max_in_flight: null, per_minute: null, on_429: 'pause_destination' },
      });
      expect(kit.db.audited().map((entry) => entry.action)).toEqual(['destination.create', 'destination.update']);
    });

    it('should refuse a body that sets no limit, null counting as absent (400 naming max_in_flight)', async () => {
      await expect(
        kit.service.put(auth, 'api.example.com', limits({ max_in_flight: null, per_minute: null })),
      ).rejects.toMatchObject({ status: 400, body: { fields: { max_in_flight: expect.any(String) } } });
      await expect(kit.service.list(auth)).resolves.toEqual({ data: [] });
      expect(kit.db.tables.audit).toEqual([]);
    });
  });

  describe('list and get', () => {
    it("should list the workspace's own destinations in order, and get one", async () => {
      await kit.service.put(auth, 'b.example.com', limits({ per_minute: 10 }));
      await kit.service.put(auth, 'a.example.com', limits({ max_in_flight: 1 }));
      await kit.service.put(authFor(OTHER_WORKSPACE), 'c.example.com', limits({ max_in_flight: 1 }));
      const { data } = await kit.service.list(auth);
      expect(data.map((row) => row.destination)).toEqual(['a.example.com', 'b.example.com']);
      await expect(kit.service.get(auth, 'b.example.com')).resolves.toMatchObject({ per_minute: 10 });
    });

    it("should answer 404 for an unknown destination and for another workspace's", async () => {
      await kit.service.put(authFor(OTHER_WORKSPACE), 'c.example.com', limits({ max_in_flight: 1 }));
      await expect(kit.service.get(auth, 'missing.example.com')).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.get(auth, 'c.example.com')).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('remove', () => {
    it('should delete the limits and audit destination.delete', async () => {
      await kit.service.put(auth, 'api.example.com', limits({ max_in_flight: 2 }));
      await kit.service.remove(auth, 'api.example.com');
      await expect(kit.service.get(auth, 'api.example.com')).rejects.toMatchObject({ status: 404 });
      expect(kit.db.audited().at(-1)).toEqual({
        actor: auth.actor,
        action: 'destination.delete',
        target: 'api.example.com',
      });
    });

    it("should answer 404 for an unknown destination and another workspace's, auditing nothing", async () => {
      await kit.service.put(authFor(OTHER_WORKSPACE), 'c.example.com', limits({ max_in_flight: 1 }));
      await expect(kit.service.remove(auth, 'missing.example.com')).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.remove(auth, 'c.example.com')).rejects.toMatchObject({ status: 404 });
      await expect(kit.service.get(authFor(OTHER_WORKSPACE), 'c.example.com')).resolves.toBeDefined();
      expect(kit.db.audited(auth.workspaceId)).toEqual([]);
    });
  });
});
