/**
 * Load bench (issue #7): N service jobs vs N native Temporal Schedules on the same server, firing
 * at the same instants, delivering to one loopback receiver. Not a test: it measures, it never
 * fails a build. It starts nothing of the stack; it takes a running API and Temporal server:
 *
 *   SVC_URL=http://127.0.0.1:3000 SVC_API_KEY=sjs_… [TEMPORAL_ADDRESS=127.0.0.1:7233] \
 *   [TEMPORAL_NAMESPACE=default] node -r @swc-node/register bench/load.ts [jobs=30] [seconds=120] \
 *   [interval=10] [--only=svc|native|both] [--mode=interleaved|sequential] [--noop=300] [--warmup=0]
 *   [--sink=webhook|temporal_workflow] [--destination-limit=N]
 *
 * What it creates (jobs tagged `bench-load-<run>`, Schedules `bench-native-<run>-<i>`) it deletes
 * at the end, also after an error or Ctrl-C (a second Ctrl-C exits at once). See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { readActions, sideActions, type ActionCounts, type SideActions } from './load/actions';
import { accountMirror, analyseSide, measurementWindow, type MirrorAccount, type SideResult } from './load/analysis';
import {
  connectClient,
  installQuietRuntime,
  measureNoopCeiling,
  NativeSchedules,
  startBenchWorker,
  type NoopCeiling,
} from './load/native-side';
import { parseOptions, type LoadOptions } from './load/options';
import { startReceiver, type Receiver, type Source } from './load/receiver';
import { printReport } from './load/report';
import { ServiceApi, ServiceJobs } from './load/service-side';
import {
  busyBetween,
  groupSharesBetween,
  log,
  peakWorkerRss,
  round,
  sampleCpu,
  sampleGroupCpu,
  summarizeLatencies,
} from './load/util';

/** Undo actions run last-registered first; each failure is logged and the rest still run. */
class Cleanup {
  private readonly steps: Array<{ label: string; run: () => Promise<void> }> = [];

  add(label: string, run: () => Promise<void>): void {
    this.steps.push({ label, run });
  }

  async runAll(): Promise<void> {
    for (const step of this.steps.reverse()) {
      try {
        await step.run();
      } catch (err) {
        log(`cleanup: ${step.label} failed: ${(err as Error).message}`);
      }
    }
  }
}

/** First SIGINT/SIGTERM aborts the run (cleanup still runs); a second one exits at once. */
function abortOnSignals(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      log(`${signal} again: exiting without cleanup`);
      process.exit(130);
    }
    log(`${signal}: stopping, deleting what this run created`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}

/** One side in a phase: something that creates N firing things and removes them. */
interface PhaseSide {
  source: Source;
  /** `instantMs`: the one instant of `--instant` mode, else null. */
  create(signal: AbortSignal, instantMs: number | null): Promise<void>;
  remove(): Promise<void>;
}

interface PhaseResult {
  sides: SideResult[];
  mirror: MirrorAccount | null;
  /** Billable actions of the phase's one side (sequential mode with TEMPORAL_METRICS_URL). */
  actions: SideActions | null;
}

/**
 * Creates the phase's sides, waits out the window and the drain, reads what arrived, deletes the
 * native side, waits for the service's jobs to catch up and reads its mirror, then deletes the
 * service side (its delete latency is measured here).
 */
async function runPhase(
  sides: PhaseSide[],
  context: { options: LoadOptions; receiver: Receiver; serviceJobs: ServiceJobs | null; signal: AbortSignal },
): Promise<PhaseResult> {
  const { options, receiver, serviceJobs, signal } = context;
  // Actions are only attributable to a side when it runs alone.
  const countActions = options.temporalMetricsUrl !== undefined && sides.length === 1;
  const sampleActions = (): Promise<ActionCounts> | null =>
    countActions ? readActions(options.temporalMetricsUrl!, options.temporal.namespace) : null;
  const beforeCreate = await sampleActions();
  // --instant: the phase's one instant, set at its start with the same lead for either side.
  const instantMs = options.instantLeadS === null ? null : alignUp(Date.now() + options.instantLeadS * 1000, 60_000);
  if (instantMs !== null) {
    log(`every job fires once, at ${new Date(instantMs).toISOString()}`);
  }
  for (const side of sides) {
    log(`creating ${options.jobs} ${side.source === 'svc' ? 'service jobs' : 'native Schedules'}`);
    await side.create(signal, instantMs);
  }
  const window =
    instantMs === null
      ? measurementWindow(Date.now() + options.warmupS * 1000, options.durationS, options.intervalS)
      : { startMs: instantMs, endMs: instantMs + 60_000, intervalMs: 60_000 };
  const drainedAt = window.endMs + options.drainS * 1000;
  log(
    `measuring occurrences from ${new Date(window.startMs).toISOString()} to ${new Date(window.endMs).toISOString()} ` +
      `(exclusive), reading at ${new Date(drainedAt).toISOString()}`,
  );
  // The machine's CPU over the window and its drain: this phase's side (or both, interleaved).
  await sleep(Math.max(0, window.startMs - Date.now()), undefined, { signal });
  const windowStartActions = await sampleActions();
  const actionsFromMs = Date.now();
  const cpuFrom = sampleCpu();
  const groupsFrom = sampleGroupCpu();
  const workerRssPeak = await peakWorkerRss(options.workerMetricsUrl, drainedAt, signal);
  await sleep(Math.max(0, drainedAt - Date.now()), undefined, { signal });
  const drainedActions = await sampleActions();
  const actionsToMs = Date.now();
  const cpuTo = sampleCpu();
  const cpuBusy = busyBetween(cpuFrom, cpuTo);
  const cpuByProcess = groupSharesBetween(
    { groups: groupsFrom, machine: cpuFrom },
    { groups: sampleGroupCpu(), machine: cpuTo },
  );

  const arrivals = receiver.arrivals();
  const results = sides.map((side) => ({
    ...analyseSide(side.source, options.jobs, window, arrivals),
    cpuBusy,
    cpuByProcess,
    workerRssPeakMiB: workerRssPeak === null ? null : round(workerRssPeak / 1024 / 1024, 1),
  }));
  const actions =
    beforeCreate && windowStartActions && drainedActions
      ? sideActions(
          sides[0]!.source,
          options.jobs,
          { beforeCreate, windowStart: windowStartActions, drained: drainedActions },
          arrivals.filter(
            (a) => a.source === sides[0]!.source && a.arrivedAtMs >= actionsFromMs && a.arrivedAtMs < actionsToMs,
          ).length,
        )
      : null;
  // The native side goes first: what it still fires would only slow the service's catch-up.
  const ordered = [...sides].sort((a, b) => Number(a.source === 'svc') - Number(b.source === 'svc'));
  let mirror: MirrorAccount | null = null;
  for (const side of ordered) {
    if (side.source === 'svc' && serviceJobs) {
      log('reading the service runs mirror');
      const lastSlotMs = window.endMs - window.intervalMs;
      const runs = await serviceJobs.settledRuns(window.startMs, lastSlotMs, options.settleS * 1000, signal);
      mirror = accountMirror(serviceJobs.jobIds, window, runs);
    }
    log(`deleting the ${side.source} side`);
    await side.remove();
  }
  return { sides: results, mirror, actions };
}

/** Interleaved: both sides in one phase, at the same instants. Sequential: one phase per side. */
function phasesOf(options: LoadOptions, sides: PhaseSide[]): PhaseSide[][] {
  return options.mode === 'sequential' ? sides.map((side) => [side]) : [sides];
}

const alignUp = (ms: number, step: number): number => Math.ceil(ms / step) * step;

const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || !b ? null : a / b;

async function main(signal: AbortSignal): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const runId = randomBytes(4).toString('hex');
  const loadBefore = loadavg();
  const cleanup = new Cleanup();
  try {
    installQuietRuntime();
    const receiver = await startReceiver();
    cleanup.add('receiver', () => receiver.close());
    const temporal = await connectClient(options.temporal);
    cleanup.add('Temporal client', temporal.close);
    log(`bundling workflows and starting the bench worker on bench-native-${runId}`);
    const worker = await startBenchWorker(options.temporal, `bench-native-${runId}`);
    cleanup.add('bench worker', () => worker.stop());

    const sides: PhaseSide[] = [];
    let serviceJobs: ServiceJobs | null = null;
    let nativeSchedules: NativeSchedules | null = null;
    if (options.only !== 'native') {
      const api = new ServiceApi(options.svcUrl, options.svcApiKey);
      if (options.destinationLimit > 0) {
        const destination = `/destinations/${encodeURIComponent(new URL(receiver.baseUrl).host)}`;
        log(`limiting ${new URL(receiver.baseUrl).host} to ${options.destinationLimit} in flight`);
        await api.call('PUT', destination, { max_in_flight: options.destinationLimit }, [200, 201]);
        cleanup.add('destination limit', () =>
          api.call('DELETE', destination, undefined, [204, 404]).then(() => undefined),
        );
      }
      const jobs = new ServiceJobs({
        api,
        count: options.jobs,
        intervalS: options.intervalS,
        receiverUrl: receiver.baseUrl,
        runTag: `bench-load-${runId}`,
        // temporal_workflow: each occurrence starts the native side's own workflow on the bench
        // worker, with the occurrence time as the argument a Schedule would set as an attribute.
        ...(options.sink === 'temporal_workflow'
          ? {
              sink: (_: number, url: string) => ({
                kind: 'temporal_workflow',
                config: {
                  workflow_type: 'nativeDeliver',
                  task_queue: worker.taskQueue,
                  namespace: options.temporal.namespace,
                  args: [url, '{{run.scheduled_at}}'],
                },
              }),
            }
          : {}),
        aligned: options.aligned,
      });
      cleanup.add('service jobs', () => jobs.remove());
      sides.push({ source: 'svc', create: (s, at) => jobs.create(s, at), remove: () => jobs.remove() });
      serviceJobs = jobs;
    }
    if (options.only !== 'svc') {
      const schedules = new NativeSchedules({
        client: temporal.client,
        count: options.jobs,
        intervalS: options.intervalS,
        receiverUrl: receiver.baseUrl,
        runId,
        taskQueue: worker.taskQueue,
        aligned: options.aligned,
      });
      cleanup.add('native Schedules', () => schedules.remove());
      sides.push({ source: 'native', create: (s, at) => schedules.create(s, at), remove: () => schedules.remove() });
      nativeSchedules = schedules;
    }

    const results: SideResult[] = [];
    let mirror: MirrorAccount | null = null;
    const actions: SideActions[] = [];
    for (const phase of phasesOf(options, sides)) {
      const phaseResult = await runPhase(phase, { options, receiver, serviceJobs, signal });
      // Printed as each phase ends: a later phase that fails (a loaded dev server) keeps this one's figures.
      log(`phase result: ${JSON.stringify(phaseResult.sides)}`);
      results.push(...phaseResult.sides);
      mirror = phaseResult.mirror ?? mirror;
      if (phaseResult.actions) {
        actions.push(phaseResult.actions);
      }
    }

    let noop: NoopCeiling | null = null;
    if (options.noopWorkflows > 0) {
      log(`no-op ceiling: ${options.noopWorkflows} workflows, ${options.noopConcurrency} concurrent`);
      noop = await measureNoopCeiling(
        temporal.client,
        { taskQueue: worker.taskQueue, runId, total: options.noopWorkflows, concurrency: options.noopConcurrency },
        signal,
      );
    }

    const svc = results.find((r) => r.side === 'svc');
    const native = results.find((r) => r.side === 'native');
    printReport({
      date: new Date().toISOString(),
      runId,
      mode: options.mode,
      sink: options.sink,
      aligned: options.aligned,
      destinationLimit: options.destinationLimit,
      instantLeadS: options.instantLeadS,
      jobs: options.jobs,
      durationS: options.durationS,
      warmupS: options.warmupS,
      intervalS: options.intervalS,
      loadAverage: { before: loadBefore, after: loadavg() },
      sides: results,
      ratios:
        svc && native
          ? {
              deliveriesPerS: round(ratio(svc.deliveriesPerS, native.deliveriesPerS), 3),
              lagP50: round(ratio(svc.lagMs.p50, native.lagMs.p50), 2),
            }
          : null,
      mirror,
      serviceCreateMs: serviceJobs ? summarizeLatencies(serviceJobs.createMs) : null,
      serviceDeleteMs: serviceJobs ? summarizeLatencies(serviceJobs.deleteMs) : null,
      nativeCreateMs: nativeSchedules ? summarizeLatencies(nativeSchedules.createMs) : null,
      noop,
      actions,
    });
  } finally {
    await cleanup.runAll();
  }
}

const interrupted = abortOnSignals();
main(interrupted).then(
  () => process.exit(0),
  (err: unknown) => {
    if (interrupted.aborted) {
      log('interrupted; what this run created is deleted');
      process.exit(130);
    }
    log(`failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
