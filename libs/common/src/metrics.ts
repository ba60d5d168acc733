import { timingSafeEqual } from 'node:crypto';
/**
 * Prometheus instruments of the API and the worker (docs/operations.md lists every one). Each
 * process owns one registry; names start with `svc_`. Labels never carry tenant data (no
 * workspace or job ids), so cardinality stays bounded by routes, statuses and outcomes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds, from a fast API answer to a late occurrence. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export interface ApiMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_api_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from request received to response sent, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
  };
}

export interface RunBacklog {
  /** Runs due and still waiting for their first attempt. */
  count: number;
  /** Seconds the oldest of them has been due (0 when none). */
  oldestSeconds: number;
  /** Runs open with no progress past `scheduler.stalled_run_grace` (RunsRepository.countStalled). */
  stalled?: number;
}

export interface WorkerMetrics {
  registry: Registry;
  occurrences: Counter<'action' | 'skip_reason'>;
  runsFinished: Counter<'status' | 'trigger' | 'skip_reason'>;
  attempts: Counter<'outcome'>;
  startLag: Histogram<'trigger'>;
  endToEnd: Histogram<'status'>;
  stalledRunsRepaired: Counter<'action'>;
  /** 1 while a dependency counts as degraded (service-health.ts), else 0; one series per dependency. */
  serviceDegraded: Gauge<'dependency'>;
  /** Attempts that waited for their destination, by reason. */
  destinationWaits: Counter<'reason'>;
}

/** One configured destination's shared state, summed over the workspaces that limit it. */
export interface DestinationState {
  destination: string;
  inFlight: number;
  waiting: number;
  /** Epoch seconds of the hold still ahead, else 0. */
  heldUntilSeconds: number;
}

/** A gauge in `registry` with the one label `label`, whose values `collect` sets at each scrape. */
function scrapedGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: L,
  collect: (gauge: Gauge<L>) => Promise<void>,
): Gauge<L> {
  return new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      await collect(this);
    },
  });
}

/** `readBacklog` is called on every scrape (one index probe, see RunsRepository.backlog). */
export function createWorkerMetrics(options: {
  taskQueue: string;
  readBacklog: () => Promise<RunBacklog>;
  /** The configured destinations' state (one statement per scrape); absent: no destination gauges. */
  readDestinations?: () => Promise<DestinationState[]>;
}): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_worker_' });
  // Both gauges come from one read per scrape (the registry collects metrics concurrently).
  let read: { at: number; backlog: Promise<RunBacklog | null> } | null = null;
  const readOnce = () => {
    if (!read || Date.now() - read.at > 1_000) {
      read = { at: Date.now(), backlog: options.readBacklog().catch(() => null) };
    }
    return read.backlog;
  };
  const labels = { task_queue: options.taskQueue };
  /** A gauge of the task queue's backlog read: `pick`'s value, unset when the read failed or has none. */
  const backlogGauge = (name: string, help: string, pick: (backlog: RunBacklog) => number | undefined) =>
    scrapedGauge(registry, name, help, 'task_queue', async (gauge) => {
      const backlog = await readOnce();
      const value = backlog ? pick(backlog) : undefined;
      if (value !== undefined) {
        gauge.set(labels, value);
      }
    });
  backlogGauge(
    'svc_runs_backlog',
    'Runs due and not yet started (waiting for their first attempt), by task queue.',
    (b) => b.count,
  );
  backlogGauge(
    'svc_runs_backlog_oldest_seconds',
    'How long the oldest due run has waited for its first attempt, by task queue.',
    (b) => b.oldestSeconds,
  );
  backlogGauge(
    'svc_runs_stalled',
    'Runs open with no progress past scheduler.stalled_run_grace (no first attempt, or a retry long due).',
    (b) => b.stalled,
  );
  if (options.readDestinations) {
    const readDestinations = options.readDestinations;
    let destinations: { at: number; states: Promise<DestinationState[] | null> } | null = null;
    const readStates = () => {
      if (!destinations || Date.now() - destinations.at > 1_000) {
        destinations = { at: Date.now(), states: readDestinations().catch(() => null) };
      }
      return destinations.states;
    };
    // Labelled by destination: only destinations a workspace configured limits for (bounded by
    // their rows), never workspace or job ids; a destination limited by two workspaces is summed.
    const destinationGauge = (name: string, help: string, value: (state: DestinationState) => number) =>
      scrapedGauge(registry, name, help, 'destination', async (gauge) => {
        const states = await readStates();
        if (states) {
          gauge.reset();
          for (const state of states) {
            gauge.set({ destination: state.destination }, value(state));
          }
        }
      });
    destinationGauge(
      'svc_destination_in_flight',
      'Attempts holding a lease on a limited destination now, by destination.',
      (s) => s.inFlight,
    );
    destinationGauge(
      'svc_destination_waiting',
      'Runs deferred waiting for a limited or held destination, by destination.',
      (s) => s.waiting,
    );
    destinationGauge(
      'svc_destination_held_until_seconds',
      'Until when (Unix seconds) a Retry-After holds the destination under on_429: pause_destination; 0 when not held.',
      (s) => s.heldUntilSeconds,
    );
  }
  return {
    registry,
    destinationWaits: new Counter({
      name: 'svc_destination_waits_total',
      help: 'Attempts that waited for their destination instead of sending (no attempt spent), by reason: destination_limit or destination_held.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    stalledRunsRepaired: new Counter({
      name: 'svc_stalled_runs_repaired_total',
      help: 'Stalled runs repaired by the worker sweep: start (workflow started), cancel (job deleted), close (workflow ended without an outcome).',
      labelNames: ['action'] as const,
      registers: [registry],
    }),
    occurrences: new Counter({
      name: 'svc_occurrences_total',
      help: 'Occurrences decided by job workflows: action start, queue or skip (with skip_reason, e.g. misfire).',
      labelNames: ['action', 'skip_reason'] as const,
      registers: [registry],
    }),
    runsFinished: new Counter({
      name: 'svc_runs_finished_total',
      help: 'Runs that reached a terminal status, by status, trigger and skip_reason (empty unless skipped).',
      labelNames: ['status', 'trigger', 'skip_reason'] as const,
      registers: [registry],
    }),
    attempts: new Counter({
      name: 'svc_attempts_total',
      help: 'Delivery attempts by outcome class: success, retryable or fatal.',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    startLag: new Histogram({
      name: 'svc_run_start_lag_seconds',
      help: "Scheduled time to the first attempt's start, by trigger.",
      labelNames: ['trigger'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    endToEnd: new Histogram({
      name: 'svc_run_end_to_end_seconds',
      help: 'Scheduled time to the run reaching its terminal status, by status.',
      labelNames: ['status'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    serviceDegraded: new Gauge({
      name: 'svc_service_degraded',
      help: 'Whether the worker sees a dependency degraded (1) or not (0): temporal, postgres, worker_polling, schedule_lag.',
      labelNames: ['dependency'] as const,
      registers: [registry],
    }),
  };
}

/** A run as it reached its terminal status (the columns the run metrics read). */
export interface ClosedRunFacts {
  status: string;
  trigger: string;
  skipReason: string | null;
  scheduledAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** Counts a terminal run and observes its start lag (if it started) and end-to-end time. */
export function recordRunClosed(metrics: WorkerMetrics, run: ClosedRunFacts): void {
  metrics.runsFinished.inc({ status: run.status, trigger: run.trigger, skip_reason: run.skipReason ?? '' });
  const scheduled = run.scheduledAt.getTime();
  if (run.startedAt) {
    metrics.startLag.observe({ trigger: run.trigger }, Math.max(0, run.startedAt.getTime() - scheduled) / 1000);
  }
  if (run.finishedAt && run.status !== 'skipped') {
    metrics.endToEnd.observe({ status: run.status }, Math.max(0, run.finishedAt.getTime() - scheduled) / 1000);
  }
}

/**
 * Who may read `/metrics` (API and worker, docs/operations.md → Metrics access): with
 * `metrics.token` set, a request bearing it (`Authorization: Bearer <token>`); without one, only
 * peers on the loopback interface, so a deployment that publishes its port does not publish its
 * metrics, and only while `tokenless` holds: the API answers `token_required` when it listens
 * beyond loopback or behind a proxy, where a loopback peer may be anyone (a same-host proxy
 * forwards every client from 127.0.0.1). `peer` is the TCP peer, never a forwarded address.
 */
export function metricsAccess(
  token: string | null,
  authorization: string | undefined,
  peer: string | undefined,
  tokenless = true,
): 'allowed' | 'unauthorized' | 'forbidden' | 'token_required' {
  if (token) {
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
    const expected = Buffer.from(token);
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected) ? 'allowed' : 'unauthorized';
  }
  if (!tokenless) {
    return 'token_required';
  }
  return isLoopback(peer) ? 'allowed' : 'forbidden';
}

/** Whether a listen address (`http.host`) only accepts connections from this host. */
export function isLoopbackHost(host: string): boolean {
  const plain = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return plain === 'localhost' || isLoopback(plain);
}

function isLoopback(address: string | undefined): boolean {
  if (!address) {
    return false;
  }
  const plain = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}
