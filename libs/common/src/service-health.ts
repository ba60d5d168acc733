/**
 * The service's own health as the worker sees it (docs/operations.md → Service degraded): per
 * dependency, whether it has been failing long enough to count as degraded, and the transitions
 * an operator is told about. Pure: the worker feeds it one observation per dependency and probe.
 */
import type { ServiceAlertDetails } from './alert-events';

export const SERVICE_DEPENDENCIES = ['temporal', 'postgres', 'worker_polling', 'schedule_lag'] as const;
export type ServiceDependency = (typeof SERVICE_DEPENDENCIES)[number];

/**
 * A worker's report of what it sees degraded counts this long after it was written: six probes
 * (every 5 s), so a killed worker's last report fades within half a minute.
 */
export const SERVICE_HEALTH_FRESH_MS = 30_000;

export interface ServiceHealthTransition {
  dependency: ServiceDependency;
  kind: 'degraded' | 'recovered';
  /** When the failing streak began (for `recovered` too). */
  since: Date;
  /** When it counted as degraded (for `recovered`, when it had). */
  degradedAt: Date;
  /** When this transition happened: `degradedAt` for `degraded`, the first success for `recovered`. */
  at: Date;
  /** The last failure's cause (for `recovered`, the cause while it was degraded). */
  cause: string | null;
}

export interface ServiceHealthOptions {
  /**
   * A dependency counts as degraded once it has failed for this long without a success
   * (`alerts.service_degraded_after`; `schedule_lag`: `alerts.service_lag_after`). Every
   * degradation and its recovery is a transition: repeats are held back by each alert rule's
   * cooldown, not here, so the state (`isDegraded`, the metric) and the transitions agree.
   */
  degradedAfterMs: number | Readonly<Record<ServiceDependency, number>>;
}

/** A dependency degraded now: since when it fails, when it counted as degraded, and why. */
export interface ServiceDegradation {
  dependency: ServiceDependency;
  since: Date;
  degradedAt: Date;
  cause: string | null;
}

interface State {
  failingSince: Date | null;
  degradedAt: Date | null;
  cause: string | null;
}

export class ServiceHealthTracker {
  private readonly states = new Map<ServiceDependency, State>();

  constructor(private readonly options: ServiceHealthOptions) {}

  /** Records one probe's result; returns the transition to tell, if any. */
  observe(dependency: ServiceDependency, cause: string | null, now: Date): ServiceHealthTransition | null {
    const state = this.state(dependency);
    if (cause === null) {
      const { failingSince: since, degradedAt, cause: lastCause } = state;
      Object.assign(state, { failingSince: null, degradedAt: null, cause: null });
      return since && degradedAt
        ? { dependency, kind: 'recovered', since, degradedAt, at: now, cause: lastCause }
        : null;
    }
    state.failingSince ??= now;
    state.cause = cause;
    if (state.degradedAt || now.getTime() - state.failingSince.getTime() < this.degradedAfterMs(dependency)) {
      return null;
    }
    state.degradedAt = now;
    return { dependency, kind: 'degraded', since: state.failingSince, degradedAt: now, at: now, cause };
  }

  isDegraded(dependency: ServiceDependency): boolean {
    return this.state(dependency).degradedAt !== null;
  }

  /** The dependencies degraded now, with their streaks (what a restarted worker picks up). */
  degradations(): ServiceDegradation[] {
    return SERVICE_DEPENDENCIES.flatMap((dependency) => {
      const { failingSince, degradedAt, cause } = this.state(dependency);
      return failingSince && degradedAt ? [{ dependency, since: failingSince, degradedAt, cause }] : [];
    });
  }

  /**
   * Takes up degradations told by this worker before it stopped (its state folder): the next
   * success ends them with a `recovered` transition carrying their start, and no second
   * `degraded` is told while they last.
   */
  restore(degradations: readonly ServiceDegradation[]): void {
    for (const { dependency, since, degradedAt, cause } of degradations) {
      Object.assign(this.state(dependency), { failingSince: since, degradedAt, cause });
    }
  }

  private degradedAfterMs(dependency: ServiceDependency): number {
    const { degradedAfterMs } = this.options;
    return typeof degradedAfterMs === 'number' ? degradedAfterMs : degradedAfterMs[dependency];
  }

  private state(dependency: ServiceDependency): State {
    let state = this.states.get(dependency);
    if (!state) {
      state = { failingSince: null, degradedAt: null, cause: null };
      this.states.set(dependency, state);
    }
    return state;
  }
}

/** One service alert to record: a transition, with the end of its streak once that is known. */
export interface PendingServiceAlert {
  /**
   * The transition's id: type, dependency and the streak's start. Its alert events' ids derive
   * from the same three (and the workspace), so recording it twice inserts nothing the second time.
   */
  id: string;
  type: 'service.degraded' | 'service.recovered';
  dependency: ServiceDependency;
  cause: string | null;
  beganAt: Date;
  degradedAt: Date;
  /** For `service.degraded`: set when the recovery came before the alert could be recorded. */
  endedAt: Date | null;
  /** When it happened: `degradedAt` or, for `service.recovered`, `endedAt`. */
  at: Date;
}

/**
 * Where the outbox keeps its transitions beyond the worker's memory (the worker's state folder:
 * `ServiceHealthJournal`), so a worker killed while PostgreSQL is out loses none. `append` is
 * called for each new transition, `replace` with everything still waiting after a change to older
 * ones (recorded, or dropped for capacity).
 */
export interface ServiceAlertJournal {
  append(alert: PendingServiceAlert): void;
  replace(alerts: readonly PendingServiceAlert[]): void;
}

export function pendingServiceAlertId(type: PendingServiceAlert['type'], dependency: string, beganAt: Date): string {
  return `${type}:${dependency}:${beganAt.toISOString()}`;
}

/**
 * The transitions not yet recorded as alert events, in the order they happened. Alert rules live
 * in PostgreSQL, so while PostgreSQL is out (or whenever recording fails) the transitions wait
 * here, and in the journal when one is given, and go out once it answers again: a
 * `service.degraded` recorded after its recovery carries the time it ended too. At most
 * `capacity` are kept (the oldest go).
 */
export class ServiceAlertOutbox {
  private readonly queue: PendingServiceAlert[] = [];
  private droppedCount = 0;

  constructor(
    private readonly capacity = 100,
    private readonly journal?: ServiceAlertJournal,
  ) {}

  add(t: ServiceHealthTransition): void {
    const type = t.kind === 'degraded' ? 'service.degraded' : 'service.recovered';
    const alert: PendingServiceAlert = {
      id: pendingServiceAlertId(type, t.dependency, t.since),
      type,
      dependency: t.dependency,
      cause: t.cause,
      beganAt: t.since,
      degradedAt: t.degradedAt,
      endedAt: t.kind === 'recovered' ? t.at : null,
      at: t.at,
    };
    this.push(alert);
    this.journal?.append(alert);
    if (this.trim()) {
      this.journal?.replace(this.queue);
    }
  }

  /**
   * Takes up what a journal kept, in order (a recovery ends the degradation waiting before it;
   * an id seen already is left out). Writes nothing to the journal, unless some are dropped.
   */
  restore(alerts: readonly PendingServiceAlert[]): void {
    for (const alert of alerts) {
      if (!this.queue.some((waiting) => waiting.id === alert.id)) {
        this.push({ ...alert });
      }
    }
    if (this.trim()) {
      this.journal?.replace(this.queue);
    }
  }

  private push(alert: PendingServiceAlert): void {
    if (alert.type === 'service.recovered') {
      for (const waiting of this.queue) {
        if (
          waiting.type === 'service.degraded' &&
          waiting.dependency === alert.dependency &&
          waiting.beganAt.getTime() === alert.beganAt.getTime()
        ) {
          waiting.endedAt = alert.at;
        }
      }
    }
    this.queue.push(alert);
  }

  /** Drops the oldest beyond capacity; whether any went. */
  private trim(): boolean {
    let trimmed = false;
    while (this.queue.length > this.capacity) {
      this.queue.shift();
      this.droppedCount += 1;
      trimmed = true;
    }
    return trimmed;
  }

  /** What waits, oldest first (a copy). */
  pending(): PendingServiceAlert[] {
    return this.queue.map((alert) => ({ ...alert }));
  }

  /** Removes the first `count` (recorded). */
  recorded(count: number): void {
    if (count > 0) {
      this.queue.splice(0, count);
      this.journal?.replace(this.queue);
    }
  }

  get size(): number {
    return this.queue.length;
  }

  /** How many were dropped for capacity since start. */
  get dropped(): number {
    return this.droppedCount;
  }
}

/**
 * What a service event says of its cause. Events reach every workspace that subscribes (hosted
 * mode included), so the driver's message, which names hosts and ports of the deployment, stays in
 * the worker's log; the event says what is out. The lag's own words carry only durations.
 */
const PUBLIC_CAUSES: Record<Exclude<ServiceDependency, 'schedule_lag'>, string> = {
  temporal: 'Temporal is unreachable',
  postgres: 'PostgreSQL is unreachable or read-only',
  worker_polling: 'no worker polls the task queue',
};

export function publicServiceCause(dependency: ServiceDependency, cause: string | null): string | null {
  if (cause === null || dependency === 'schedule_lag') {
    return cause;
  }
  return PUBLIC_CAUSES[dependency];
}

/** The snapshot a service event carries (docs/alerts.md → Service events). */
export function serviceAlertDetails(alert: PendingServiceAlert, observedBy: string): ServiceAlertDetails {
  return {
    service: {
      dependency: alert.dependency,
      cause: publicServiceCause(alert.dependency, alert.cause),
      began_at: alert.beganAt.toISOString(),
      degraded_at: alert.degradedAt.toISOString(),
      ended_at: alert.endedAt?.toISOString() ?? null,
      duration_ms: alert.endedAt ? alert.endedAt.getTime() - alert.beganAt.getTime() : null,
      observed_by: observedBy,
    },
  };
}
