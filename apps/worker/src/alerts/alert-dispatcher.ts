import type { AlertWorkflowGateway } from '@svc/orchestration';
import type { AlertEventsRepository } from '@svc/persistence';

/**
 * Alerts (docs/alerts.md): starts the alert workflow of each event on the alerts queue, then marks
 * the events dispatched. Used for the events `closeRun` records and those the alert sweep finds.
 */
export class AlertDispatcher {
  constructor(
    private readonly gateway: AlertWorkflowGateway,
    private readonly events: AlertEventsRepository,
  ) {}

  async dispatch(eventIds: string[]): Promise<void> {
    for (const eventId of eventIds) {
      await this.gateway.startAlert(eventId);
    }
    await this.events.markDispatched(eventIds, new Date());
  }
}
