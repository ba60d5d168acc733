import { serviceAlertDetails, type ServiceAlertOutbox } from '@svc/common/service-health';
import type { AlertEventsRepository } from '@svc/persistence';

export interface ServiceAlertsDeps {
  events: Pick<AlertEventsRepository, 'recordServiceEvent'>;
  /** Starts the alert workflows of recorded events (`AlertDispatcher`). */
  dispatch: (eventIds: string[]) => Promise<void>;
  /** `host:pid` of this worker, carried by the events. */
  observedBy: string;
  /** Bounds one recording (PostgreSQL may hang rather than refuse). */
  withTimeout: <T>(promise: Promise<T>) => Promise<T>;
}

export interface ServiceAlertsFlush {
  /** Transitions recorded now. */
  recorded: number;
  /** Alert events inserted (one per workspace listening). */
  eventIds: string[];
  /** Why recording stopped, when it did (the rest waits for the next flush). */
  error: string | null;
}

/**
 * Turns the service's health transitions waiting in the outbox into `service.degraded` /
 * `service.recovered` alert events (docs/alerts.md → Service events), oldest first, and starts
 * their alert workflows. A transition leaves the outbox only once recorded, so one seen while
 * PostgreSQL was out is recorded (with the time it ended, if it has) when it answers again.
 * Starting the workflows may fail while Temporal is out: the events are recorded, and the alert
 * sweep starts them once it is back (docs/alerts.md → Delivery).
 */
export class ServiceAlerts {
  constructor(private readonly deps: ServiceAlertsDeps) {}

  async flush(outbox: ServiceAlertOutbox, canStartWorkflows: boolean): Promise<ServiceAlertsFlush> {
    const { events, dispatch, observedBy, withTimeout } = this.deps;
    const eventIds: string[] = [];
    let recorded = 0;
    let error: string | null = null;
    for (const alert of outbox.pending()) {
      try {
        eventIds.push(
          ...(await withTimeout(
            events.recordServiceEvent(alert.type, alert.at, serviceAlertDetails(alert, observedBy)),
          )),
        );
      } catch (err) {
        error = (err as Error).message;
        break;
      }
      recorded += 1;
    }
    outbox.recorded(recorded);
    if (eventIds.length > 0 && canStartWorkflows) {
      // Left to the alert sweep when this fails (the events stay undispatched).
      await withTimeout(dispatch(eventIds)).catch(() => undefined);
    }
    return { recorded, eventIds, error };
  }
}
