import { type Account, CrashScenario, type FaultPlan, type RunRow } from '../utils/crash-scenario';

/**
 * Crashes that overlap (issue #21; docs/operations.md → Faults → Crashes that overlap). The built
 * API and worker run as their own OS processes against a Temporal dev server (file database) and
 * a PostgreSQL started by this file alone, while twelve jobs (`every 2 seconds` to
 * `every 5 seconds`, `fire_all`, overlap `allow`) deliver to a loopback receiver. For about two
 * minutes the worker is killed with SIGKILL every 8-13 s (restarted at once or a few seconds
 * later, three times as two workers; once together with the API), the API is killed, the
 * Temporal server is killed and started again on its database file, PostgreSQL is crashed
 * (SIGKILL to the postmaster) and started again: each at least twice, some at the same time. Two
 * more jobs are deleted in the middle of it. Then the faults stop, the jobs are deleted, and:
 *
 * - no occurrence is lost: every occurrence of each job, from its first delivery to a cut-off
 *   10 s after the last fault, has a `succeeded` run and reached the receiver;
 * - one occurrence, one run: no two `schedule` runs of one (job, scheduled_at), in PostgreSQL and
 *   through the API;
 * - one occurrence, one `webhook-id`: every copy of a delivery carries its one run's id;
 * - nothing hangs: no run is left `running` or `deferred` once the jobs are deleted (runs of the
 *   jobs deleted mid-faults end `succeeded` or `cancelled`).
 *
 * Only what happened is asserted, never how fast: every wait is a bounded poll.
 */
const PLAN: FaultPlan = {
  workerKills: [
    { atMs: 8_000, downMs: 0, workers: 1 },
    { atMs: 20_000, downMs: 4_000, workers: 1, withApi: true },
    { atMs: 33_000, downMs: 2_000, workers: 2 },
    { atMs: 45_000, downMs: 0, workers: 1 },
    { atMs: 55_000, downMs: 5_000, workers: 1 },
    { atMs: 68_000, downMs: 0, workers: 2 },
    { atMs: 80_000, downMs: 3_000, workers: 1 },
    { atMs: 92_000, downMs: 0, workers: 1 },
    { atMs: 102_000, downMs: 2_000, workers: 2 },
    { atMs: 114_000, downMs: 0, workers: 1 },
  ],
  outages: [
    { part: 'temporal', atMs: 20_000, downMs: 10_000 },
    { part: 'api', atMs: 38_000, downMs: 5_000 },
    { part: 'postgres', atMs: 48_000, downMs: 8_000 },
    { part: 'temporal', atMs: 75_000, downMs: 6_000 },
    { part: 'postgres', atMs: 78_000, downMs: 5_000 },
  ],
  deleteAtMs: 57_000,
  untilMs: 115_000,
};
/** Occurrences due up to this long after the last fault are checked. */
const CUTOFF_AFTER_FAULTS_MS = 10_000;
/** How long open runs may take to close once the jobs are deleted (the orphan sweep runs about every 30 s). */
const CLOSE_WAIT_MS = 90_000;

describe('crashes that overlap', () => {
  let scenario: CrashScenario;
  let report: Record<string, unknown> = {};

  beforeAll(async () => {
    scenario = await CrashScenario.start({
      jobs: 12,
      deletedMidFaults: 2,
      periodsMs: [2_000, 3_000, 4_000, 5_000],
      plan: PLAN,
    });
  }, 240_000);

  afterAll(async () => {
    console.log(`crash-faults: ${JSON.stringify(report, null, 1)}`);
    if (scenario) {
      console.log(
        `crash-faults: faults ${JSON.stringify(scenario.faults.map((f) => `${new Date(f.at).toISOString()} ${f.what}`))}`,
      );
      console.log(`crash-faults: worker logs in ${scenario.keepWorkerLogs()}`);
      await scenario.stop();
    }
  }, 60_000);

  function summary(account: Account, stillOpen: RunRow[], timing: Record<string, unknown>): Record<string, unknown> {
    return {
      ...timing,
      occurrencesChecked: account.due,
      runRows: account.runRows,
      deliveries: account.deliveries,
      occurrencesDelivered: account.occurrencesDelivered,
      resends: account.resends,
      occurrencesWithTwoRuns: account.duplicates.length,
      resendsWithAnotherWebhookId: account.foreign.length,
      lost: account.lost.length,
      openAfterDelete: stillOpen.length,
      deletedJobRuns: account.deletedJobRuns,
      deletedJobRunsCancelled: account.deletedJobRunsCancelled,
      readyz503: scenario.readyz.observations.filter((o) => o.status === 503).length,
      mostStalledRunsInReadyz: Math.max(
        0,
        ...scenario.readyz.observations.map((o) => Number(o.body?.stalled_runs ?? 0)),
      ),
      duplicatedRunsSample: account.duplicateRows.slice(0, 6),
      openSample: stillOpen.slice(0, 6),
    };
  }

  it('should deliver every occurrence once as one run with one webhook-id, and leave no run open', async () => {
    const { startedAt, lastFaultAt } = await scenario.runFaults();
    const ready = await scenario.waitUntilReady();
    const cutoff = lastFaultAt + CUTOFF_AFTER_FAULTS_MS;
    await scenario.waitForOccurrencesDecidedPast(cutoff);
    await scenario.waitForRunsUpTo(cutoff);
    const settled = await scenario.runRows();

    await scenario.deleteKeptJobs();
    const deletedAt = Date.now();
    const stillOpen = await scenario.openRunsAfterWaiting(CLOSE_WAIT_MS);
    const account = await scenario.account(settled, cutoff);
    const repeatedInApi = await scenario.repeatedInApi();
    const finalReadyz = await scenario.readyz.probe();
    report = summary(account, stillOpen, {
      faultsSeconds: Math.round((lastFaultAt - startedAt) / 1000),
      cutoff: new Date(cutoff).toISOString(),
      secondsFromDeleteToClosed: Math.round((Date.now() - deletedAt) / 1000),
      readyzAfterFaults: ready,
    });

    // One expectation, so that a failure shows every kind of problem at once.
    expect({
      occurrencesWithTwoRuns: account.duplicates,
      repeatedInApi,
      deliveriesNotUnderTheirRunsId: account.foreign,
      lost: account.lost,
      openAfterDelete: stillOpen,
      deletedJobRunsNeitherSucceededNorCancelled: account.deletedJobRunsBadlyClosed,
      // Ready again by itself once the faults stop (no restart, nothing left waiting).
      readyzAfterFaults: ready.status === 200 ? 200 : ready,
      // Nothing left for /readyz to count as stalled once every run is closed.
      stalledRunsAtTheEnd: finalReadyz.body?.stalled_runs,
    }).toEqual({
      occurrencesWithTwoRuns: [],
      repeatedInApi: [],
      deliveriesNotUnderTheirRunsId: [],
      lost: [],
      openAfterDelete: [],
      deletedJobRunsNeitherSucceededNorCancelled: [],
      readyzAfterFaults: 200,
      stalledRunsAtTheEnd: 0,
    });
  }, 600_000);
});
