import type { AppConfig } from '@svc/common';
import type { AlertEventsRepository } from '@svc/persistence';

/** Runs the SLA watch marks per pass at most; the rest wait for the next pass. */
const SLA_BATCH = 500;
/** Events left unstarted are restarted this many at a time. */
const RESTART_BATCH = 200;
const PURGE_EVERY_MS = 3_600_000;

export interface AlertSweepReport {
  /** In-flight runs newly marked `sla_breached`. */
  breached: number;
  /** Events whose alert workflow was (re)started. */
  started: number;
  /** Events deleted by retention. */
  purged: number;
}

/**
 * The worker's periodic alert pass (every `alerts.sweep_interval`, docs/alerts.md):
 * - the SLA watch: runs still in flight past `scheduled_at + sla_threshold` are marked breached
 *   and their `run.sla_breached` events recorded and started (decisions.md: checked while running);
 * - recovery: events whose workflow start was lost (a worker killed between the commit that
 *   recorded them and the start) are started again; the workflow id makes that harmless;
 * - retention: events older than `alerts.retention` go, with their deliveries, hourly.
 * Every worker process runs it; the database decides who marks what.
 */
export class AlertSweeper {
  private lastPurgeMs = 0;

  constructor(
    private readonly deps: {
      events: AlertEventsRepository;
      dispatch: (eventIds: string[]) => Promise<void>;
      config: AppConfig;
      clock: () => Date;
    },
  ) {}

  async sweep(): Promise<AlertSweepReport> {
    const { events, dispatch, config, clock } = this.deps;
    const now = clock();
    const sla = await events.markSlaBreachesInFlight(now, config.scheduler.default_sla_threshold_ms, SLA_BATCH);
    if (sla.eventIds.length > 0) {
      await dispatch(sla.eventIds);
    }
    // Events closeRun just recorded are started by the process that recorded them; only those
    // left unstarted well past that moment are picked up here.
    const grace = Math.max(10_000, 2 * config.alerts.sweep_interval_ms);
    const lost = await events.undispatched(new Date(now.getTime() - grace), RESTART_BATCH);
    if (lost.length > 0) {
      await dispatch(lost);
    }
    let purged = 0;
    if (now.getTime() - this.lastPurgeMs >= PURGE_EVERY_MS) {
      this.lastPurgeMs = now.getTime();
      purged = await events.deleteOlderThan(new Date(now.getTime() - config.alerts.retention_ms));
    }
    return { breached: sla.marked, started: sla.eventIds.length + lost.length, purged };
  }
}
