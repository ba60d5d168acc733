/**
 * The service's own health as the worker sees it (docs/operations.md → Service degraded): per
 * dependency, whether it has been failing long enough to count as degraded, and the transitions
 * an operator is told about. Pure: the worker feeds it one observation per dependency and probe.
 */
export const SERVICE_DEPENDENCIES = ['temporal', 'postgres', 'worker_polling', 'schedule_lag'] as const;
export type ServiceDependency = (typeof SERVICE_DEPENDENCIES)[number];

export interface ServiceHealthTransition {
  dependency: ServiceDependency;
  kind: 'degraded' | 'recovered';
  /** When the failing streak began (for `recovered` too). */
  since: Date;
  at: Date;
  /** The last failure's cause (for `recovered`, the cause while it was degraded). */
  cause: string | null;
}

export interface ServiceHealthOptions {
  /** A dependency counts as degraded once it has failed for this long without a success. */
  degradedAfterMs: number;
  /**
   * A new degradation of the same dependency within this long of the last one told is not told
   * again (nor its recovery): a flapping dependency makes one alert per cooldown, not one per flap.
   * Its state (`isDegraded`, the metric) still follows every flap.
   */
  cooldownMs: number;
}

interface State {
  failingSince: Date | null;
  cause: string | null;
  degraded: boolean;
  /** Whether the current degradation was told (so its recovery is told too). */
  told: boolean;
  lastToldAt: Date | null;
}

export class ServiceHealthTracker {
  private readonly states = new Map<ServiceDependency, State>();

  constructor(private readonly options: ServiceHealthOptions) {}

  /** Records one probe's result; returns the transition to tell, if any. */
  observe(dependency: ServiceDependency, cause: string | null, now: Date): ServiceHealthTransition | null {
    const state = this.state(dependency);
    if (cause === null) {
      const wasDegraded = state.degraded;
      const since = state.failingSince;
      const told = state.told;
      const lastCause = state.cause;
      Object.assign(state, { failingSince: null, cause: null, degraded: false, told: false });
      return wasDegraded && told && since ? { dependency, kind: 'recovered', since, at: now, cause: lastCause } : null;
    }
    state.failingSince ??= now;
    state.cause = cause;
    if (state.degraded || now.getTime() - state.failingSince.getTime() < this.options.degradedAfterMs) {
      return null;
    }
    state.degraded = true;
    const inCooldown =
      state.lastToldAt !== null && now.getTime() - state.lastToldAt.getTime() < this.options.cooldownMs;
    if (inCooldown) {
      return null;
    }
    state.told = true;
    state.lastToldAt = now;
    return { dependency, kind: 'degraded', since: state.failingSince, at: now, cause };
  }

  isDegraded(dependency: ServiceDependency): boolean {
    return this.state(dependency).degraded;
  }

  private state(dependency: ServiceDependency): State {
    let state = this.states.get(dependency);
    if (!state) {
      state = { failingSince: null, cause: null, degraded: false, told: false, lastToldAt: null };
      this.states.set(dependency, state);
    }
    return state;
  }
}
