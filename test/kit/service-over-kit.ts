import { FakeTemporal } from './fake-temporal';
import { InMemoryDatabase } from './in-memory-database';

/** What `serviceOverKit` gives each test: a fresh database and Temporal, and the service built over them. */
export interface ServiceOverKit<S> {
  db: InMemoryDatabase;
  temporal: FakeTemporal;
  service: S;
}

/**
 * Before each test of the enclosing describe, a fresh `InMemoryDatabase` and `FakeTemporal` and the
 * service under test that `build` makes over them; read the fields inside tests and hooks.
 */
export function serviceOverKit<S>(build: (db: InMemoryDatabase, temporal: FakeTemporal) => S): ServiceOverKit<S> {
  const kit = {} as ServiceOverKit<S>;
  beforeEach(() => {
    kit.db = new InMemoryDatabase();
    kit.temporal = new FakeTemporal();
    kit.service = build(kit.db, kit.temporal);
  });
  return kit;
}
