/**
 * The service's own health as the worker sees it (docs/operations.md → Service degraded): per
 * dependency, whether it has been failing long enough to count as degraded, and the transitions
 * an operator is told about. Pure: the worker feeds it one observation per dependency and probe.
 */
import type { ServiceAlertDetails } from './alert-events';

export const SERVICE_DEPENDENCIES = ['temporal', 'postgres', 'worker_polling', 'schedule_lag'] as const;
export type ServiceDependency = (typeof SERVICE_DEPENDENCIES)[number];

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
 * The transitions not yet recorded as alert events, in the order they happened. Alert rules live
 * in PostgreSQL, so while PostgreSQL is out (or whenever recording fails) the transitions wait
 * here, in the worker's memory, and go out once it answers again: a `service.degraded` recorded
 * after its recovery carries the time it ended too. At most `capacity` are kept (the oldest go).
 */
export class ServiceAlertOutbox {
  private readonly queue: PendingServiceAlert[] = [];
  private droppedCount = 0;

  constructor(private readonly capacity = 100) {}

  add(t: ServiceHealthTransition): void {
    if (t.kind === 'recovered') {
      for (const waiting of this.queue) {
        if (
          waiting.type === 'service.degraded' &&
          waiting.dependency === t.dependency &&
          waiting.beganAt.getTime() === t.since.getTime()
        ) {
          waiting.endedAt = t.at;
        }
      }
    }
    this.queue.push({
      type: t.kind === 'degraded' ? 'service.degraded' : 'service.recovered',
      dependency: t.dependency,
      cause: t.cause,
      beganAt: t.since,
      degradedAt: t.degradedAt,
      endedAt: t.kind === 'recovered' ? t.at : null,
      at: t.at,
    });
    while (this.queue.length > this.capacity) {
      this.queue.shift();
      this.droppedCount += 1;
    }
  }

  /** What waits, oldest first (a copy). */
  pending(): PendingServiceAlert[] {
    return this.queue.map((alert) => ({ ...alert }));
  }

  /** Removes the first `count` (recorded). */
  recorded(count: number): void {
    this.queue.splice(0, count);
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
