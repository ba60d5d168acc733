/**
 * Command line and environment of `bench/load.ts`:
 *
 *   SVC_URL=… SVC_API_KEY=sjs_… [TEMPORAL_ADDRESS=127.0.0.1:7233] [TEMPORAL_NAMESPACE=default]
 *   [TEMPORAL_METRICS_URL=http://127.0.0.1:<port>/metrics] [WORKER_METRICS_URL=…]
 *   node -r @swc-node/register bench/load.ts [jobs=30] [seconds=120] [interval=10]
 *        [--only=svc|native|both] [--mode=interleaved|sequential] [--noop=300] [--settle=180]
 *        [--sink=webhook|temporal_workflow]
 *        [--aligned=1] [--warmup=0] [--destination-limit=N] [--instant=LEAD_S] [--drain=S]
 */
import type { TemporalTarget } from './native-side';

export type Only = 'svc' | 'native' | 'both';
export type Mode = 'interleaved' | 'sequential';
/**
 * The service jobs' sink: `webhook` POSTs to the receiver itself; `temporal_workflow` starts the
 * native side's own workflow (`nativeDeliver` on the bench worker's task queue), so both sides run
 * the same workflow and activity and differ only in what starts it (issue 28).
 */
export type SinkMode = 'webhook' | 'temporal_workflow';

export interface LoadOptions {
  /** API base, e.g. `http://127.0.0.1:3000`; required unless `--only=native`. */
  svcUrl: string;
  svcApiKey: string;
  temporal: TemporalTarget;
  jobs: number;
  durationS: number;
  intervalS: number;
  only: Only;
  mode: Mode;
  sink: SinkMode;
  /** No-op workflows for the ceiling; 0 skips it. */
  noopWorkflows: number;
  noopConcurrency: number;
  /** After the window: late arrivals still count, new occurrences do not. */
  drainS: number;
  /**
   * After the drain, at most this long: waits until every service job has a run at or after the
   * window's last instant and none of its runs in the window is still open, so occurrences a
   * backlogged job workflow has not reached yet are not counted as lost.
   */
  settleS: number;
  /**
   * Issue 25's burst: the jobs run cron `* * * * *` and the Schedules every minute at second 0,
   * so every occurrence of a side falls in the same second; interval 60 s only.
   */
  aligned: boolean;
  /**
   * Seconds after creating a side before its measurement window opens (the window's length is
   * still `durationS`): 0 measures from creation, warm-up included; issue 25's goal is a steady
   * load, so its runs also report with the first minutes left out.
   */
  warmupS: number;
  /** The service worker's /metrics (`WORKER_METRICS_URL`): its peak RSS is reported when set. */
  workerMetricsUrl: string | undefined;
  /**
   * The Temporal server's /metrics (`TEMPORAL_METRICS_URL`; the dev server's `--metrics-port`,
   * `SVC_TEMPORAL_METRICS_PORT` of scripts/start.sh): billable actions per occurrence are reported
   * per side when set, in sequential mode (bench/load/actions.ts).
   */
  temporalMetricsUrl: string | undefined;
  /**
   * `max_in_flight` of a destination limit on the receiver's `host:port` (issue 46), set before
   * the service side starts and removed after it: what the limit's lease costs per attempt. 0: none.
   */
  destinationLimit: number;
  /**
   * One-instant mode (issue 49): each side's jobs are daily jobs that all fire once, at the first
   * whole minute at least this many seconds after the side's creation starts (the same lead for
   * both sides); the window is that one instant and the first burst is the one measured: no
   * warm-up. null: the interval modes.
   */
  instantLeadS: number | null;
}

// Bounds keep a typo from leaving thousands of jobs firing for hours on a shared server.
const LIMITS = {
  jobs: [1, 10_000],
  durationS: [10, 3600],
  intervalS: [1, 3600],
  noopWorkflows: [0, 10_000],
  settleS: [0, 3600],
  warmupS: [0, 3600],
  destinationLimit: [0, 10_000],
  instantLeadS: [60, 3600],
  drainS: [0, 3600],
} as const;

function boundedInt(name: keyof typeof LIMITS, text: string): number {
  const value = Number(text);
  const [min, max] = LIMITS[name];
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function oneOf<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) {
    throw new Error(`--${name} must be one of ${allowed.join(', ')}, got "${text}"`);
  }
  return text as T;
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): LoadOptions {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (const arg of argv) {
    const flag = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (flag) {
      flags.set(flag[1]!, flag[2]!);
    } else if (arg.startsWith('-')) {
      throw new Error(`unknown argument ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  const unknown = [...flags.keys()].filter(
    (name) =>
      ![
        'only',
        'mode',
        'noop',
        'settle',
        'sink',
        'aligned',
        'warmup',
        'destination-limit',
        'instant',
        'drain',
      ].includes(name),
  );
  if (unknown.length > 0) {
    throw new Error(`unknown flag --${unknown[0]}`);
  }
  const intervalS = boundedInt('intervalS', positional[2] ?? '10');
  const options: LoadOptions = {
    svcUrl: (env.SVC_URL ?? '').replace(/\/+$/, ''),
    svcApiKey: env.SVC_API_KEY ?? '',
    temporal: { address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233', namespace: env.TEMPORAL_NAMESPACE || 'default' },
    jobs: boundedInt('jobs', positional[0] ?? '30'),
    durationS: boundedInt('durationS', positional[1] ?? '120'),
    intervalS,
    only: oneOf('only', flags.get('only') ?? 'both', ['svc', 'native', 'both'] as const),
    mode: oneOf('mode', flags.get('mode') ?? 'interleaved', ['interleaved', 'sequential'] as const),
    sink: oneOf('sink', flags.get('sink') ?? 'webhook', ['webhook', 'temporal_workflow'] as const),
    noopWorkflows: boundedInt('noopWorkflows', flags.get('noop') ?? '300'),
    noopConcurrency: 16,
    // After the window: one instant's burst may take minutes to start (10,000 at ~45 workflows/s).
    drainS: boundedInt('drainS', flags.get('drain') ?? String(flags.has('instant') ? 600 : 2 * intervalS)),
    settleS: boundedInt('settleS', flags.get('settle') ?? '180'),
    aligned: oneOf('aligned', flags.get('aligned') ?? '0', ['0', '1'] as const) === '1',
    warmupS: boundedInt('warmupS', flags.get('warmup') ?? '0'),
    workerMetricsUrl: env.WORKER_METRICS_URL || undefined,
    temporalMetricsUrl: env.TEMPORAL_METRICS_URL || undefined,
    destinationLimit: boundedInt('destinationLimit', flags.get('destination-limit') ?? '0'),
    instantLeadS: flags.has('instant') ? boundedInt('instantLeadS', flags.get('instant')!) : null,
  };
  if (options.instantLeadS !== null && (options.aligned || options.warmupS > 0 || intervalS !== 60)) {
    throw new Error('--instant fires once per job: use interval 60, without --aligned or --warmup');
  }
  if (options.aligned && intervalS !== 60) {
    throw new Error('--aligned=1 fires every minute: use interval 60');
  }
  if (options.only !== 'native' && (!options.svcUrl || !options.svcApiKey)) {
    throw new Error('SVC_URL and SVC_API_KEY are required (or --only=native)');
  }
  // The receiver listens on 127.0.0.1 only, so the service must run on this machine.
  if (options.svcUrl && !['127.0.0.1', 'localhost', '[::1]'].includes(new URL(options.svcUrl).hostname)) {
    throw new Error(`SVC_URL must be a loopback address (the receiver is on 127.0.0.1), got ${options.svcUrl}`);
  }
  if (options.durationS < 2 * intervalS) {
    throw new Error('the duration must cover at least two intervals (one is warm-up)');
  }
  return options;
}
