/**
 * Prints the SQL TypeORM would run to bring a database in line with the entities (after running
 * the migrations). Empty output = no drift. Used to draft a new migration:
 *   node -r @swc-node/register libs/persistence/scripts/schema-diff.ts postgres://…/scratch_db
 * then copy the statements into `src/migrations/<epochMs>-<Name>.ts` and review them.
 */
import { createDataSource } from '../src/data-source';

async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url) {
    throw new Error('usage: schema-diff.ts <database-url>');
  }
  const ds = createDataSource(url);
  await ds.initialize();
  try {
    await ds.runMigrations();
    const sql = await ds.driver.createSchemaBuilder().log();
    for (const q of sql.upQueries) {
      process.stdout.write(`UP   ${q.query}${q.parameters?.length ? ` -- ${JSON.stringify(q.parameters)}` : ''}\n`);
    }
    for (const q of sql.downQueries.reverse()) {
      process.stdout.write(`DOWN ${q.query}\n`);
    }
  } finally {
    await ds.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
