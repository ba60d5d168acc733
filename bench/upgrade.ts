/**
 * A live upgrade an operator can run (docs/operations.md → Upgrading):
 *
 *   npm run build && npm run bench:upgrade -- --from <commit>
 *
 * Checks out `<commit>` (default: the commit issue 47 started from) into a temporary git worktree,
 * builds it, runs it with jobs of every shape on a Temporal dev server and a PostgreSQL of its own
 * (or TEMPORAL_ADDRESS / DATABASE_URL's server when set), stops it with work in flight, starts
 * this checkout's build on the same server and database, and reports per job what the new release
 * did. Exits 1 when a check failed. Removes the worktree, the database and the servers it started.
 */
import { PREVIOUS_RELEASE, runLiveUpgrade } from '../test/utils/live-upgrade';
import { PrivatePostgres, TemporalDevServer } from '../test/utils/processes';
import { buildRelease } from '../test/utils/releases';

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<number> {
  const from = argument('--from') ?? PREVIOUS_RELEASE;
  const log = (line: string) => console.log(`[upgrade] ${line}`);
  const temporal = process.env.TEMPORAL_ADDRESS ? null : await TemporalDevServer.start();
  const postgres = process.env.DATABASE_URL ? null : await PrivatePostgres.start();
  const temporalAddress = process.env.TEMPORAL_ADDRESS ?? temporal!.address;
  // The team workflow's worker (temporal_workflow sink) connects where the test utilities look.
  process.env.TEST_TEMPORAL_ADDRESS = temporalAddress;
  const release = await buildRelease(from, log);
  try {
    const report = await runLiveUpgrade({
      from: release,
      temporalAddress,
      adminUrl: process.env.DATABASE_URL ?? postgres!.url(),
      log,
    });
    console.log(JSON.stringify(report, null, 2));
    console.log(
      report.problems.length === 0
        ? `upgrade from ${report.from}: every check held`
        : `${report.problems.length} problems`,
    );
    return report.problems.length === 0 ? 0 : 1;
  } finally {
    await release.remove();
    await temporal?.destroy();
    await postgres?.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
