import { ALL_MIGRATIONS } from '../src/data-source';
import { useScratchDatabase } from './scratch-database';

// style.md rule 16: every migration runs on an empty database, then the entities must match the
// schema exactly (no drift), then every migration reverts cleanly.
describe('migrations', () => {
  const scratch = useScratchDatabase('mig', { poolSize: 2, migrate: false });

  it('should run every migration on an empty database', async () => {
    const ran = await scratch.ds.runMigrations({ transaction: 'each' });
    expect(ran.map((m) => m.name)).toEqual(ALL_MIGRATIONS.map((m) => m.name));
  });

  it('should leave no drift between the entities and the schema', async () => {
    const sql = await scratch.ds.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('should create the hand-written indexes', async () => {
    const rows: { indexname: string; indexdef: string }[] = await scratch.ds.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname IN
       ('idx_jobs_tags', 'idx_jobs_name_trgm', 'idx_runs_workspace_scheduled', 'idx_runs_workspace_sla_breached')
       ORDER BY indexname`,
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      'idx_jobs_name_trgm',
      'idx_jobs_tags',
      'idx_runs_workspace_scheduled',
      'idx_runs_workspace_sla_breached',
    ]);
    const def = Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
    expect(def.idx_jobs_name_trgm).toContain('gin_trgm_ops');
    expect(def.idx_runs_workspace_scheduled).toContain('scheduled_at DESC, id DESC');
    expect(def.idx_runs_workspace_sla_breached).toContain('WHERE sla_breached');
  });

  it("should hold a job's policies to the values the API and the workflow know (issue 50)", async () => {
    const rows: { conname: string; def: string }[] = await scratch.ds.query(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conname IN ('ck_jobs_misfire_policy', 'ck_jobs_overlap_policy') ORDER BY conname`,
    );
    expect(rows.map((r) => r.conname)).toEqual(['ck_jobs_misfire_policy', 'ck_jobs_overlap_policy']);
    expect(rows[0].def).toContain('fire_all');
    expect(rows[1].def).toContain('cancel_previous');
  });

  it('should revert every migration and leave no table behind', async () => {
    for (let i = 0; i < ALL_MIGRATIONS.length; i++) {
      await scratch.ds.undoLastMigration();
    }
    const tables: { tablename: string }[] = await scratch.ds.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    // Only TypeORM's own bookkeeping table remains.
    expect(tables.map((t) => t.tablename)).toEqual(['typeorm_migrations']);
    expect(await scratch.ds.query(`SELECT * FROM typeorm_migrations`)).toEqual([]);
  });
});
