import { adminUrl, runDatabasePrefix } from '../utils/database';
import { PREVIOUS_RELEASE, runLiveUpgrade } from '../utils/live-upgrade';
import { buildRelease, type Release } from '../utils/releases';
import { temporalAddress } from '../utils/stack';

/**
 * A live upgrade (docs/operations.md → Upgrading; decisions.md → Upgrading running workflows):
 * the previous release, checked out into a git worktree and built the normal way, runs jobs of
 * every shape (interval, daily and parked, queue overlap with a run waiting, a run in retry
 * backoff, a `temporal_workflow` attempt waiting for completion, a paused job); it is stopped with
 * work in flight and this checkout's build takes over on the same Temporal and database. The
 * release is `SVC_UPGRADE_FROM` (a commit), by default the commit issue 47 started from.
 */
const FROM = process.env.SVC_UPGRADE_FROM ?? PREVIOUS_RELEASE;

describe(`live upgrade from ${FROM}`, () => {
  let release: Release | undefined;
  const lines: string[] = [];

  beforeAll(async () => {
    release = await buildRelease(FROM, (line) => lines.push(line));
  }, 600_000);

  // Removing the old release's checkout (node_modules included) is slow on a busy machine.
  afterAll(async () => {
    await release?.remove();
  }, 300_000);

  it('should carry every job shape over with no failed workflow task, each occurrence once', async () => {
    const report = await runLiveUpgrade({
      from: release!,
      temporalAddress: temporalAddress(),
      adminUrl: adminUrl(),
      databasePrefix: runDatabasePrefix(),
      log: (line) => lines.push(line),
    });
    expect(report.jobs.map((job) => [job.shape, job.problems])).toEqual([
      ['interval', []],
      ['queue overlap with a run waiting', []],
      ['run in retry backoff', []],
      ['temporal_workflow waiting for completion', []],
      ['daily, parked', []],
      ['paused', []],
    ]);
    // Six job workflows (and their continued-as-new runs) and every run workflow.
    expect(report.histories.scanned).toBeGreaterThan(20);
    expect(report.histories.failedTasks).toEqual([]);
    expect(report.problems).toEqual([]);
  }, 600_000);

  afterEach(() => {
    // The scenario's own account, for a failure's reader.
    process.stdout.write(`${lines.map((line) => `[live-upgrade] ${line}`).join('\n')}\n`);
  });
});
