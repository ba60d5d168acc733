import type { Logger } from '@nestjs/common';
import { ConflictError, NotFoundError, UnavailableError } from '@svc/common';

/**
 * The rows of work a workflow carries out, written by the API before it starts the workflow, and
 * which a user may cancel: backfills and bulk operations.
 */
export interface WorkflowWorkRows<Row> {
  getById(workspaceId: string, id: string): Promise<Row | null>;
  /** Records a cancel on a row still running; null when the work has ended. */
  requestCancel(workspaceId: string, id: string, at: Date): Promise<Row | null>;
  delete(id: string): Promise<void>;
}

/**
 * How the API starts and cancels work a workflow carries out (backfills, bulk operations): the
 * same steps and answers for both, over the work's rows and the gateway of its workflows. `noun`
 * names the work in `404`, `409` and log lines.
 */
export class WorkflowWork<Row extends { status: string }> {
  constructor(
    private readonly rows: WorkflowWorkRows<Row>,
    private readonly workflows: { cancel(id: string): Promise<void> },
    private readonly noun: 'Backfill' | 'Operation',
    private readonly logger: Logger,
  ) {}

  /**
   * Starts the workflow of work whose rows were just written; when the start fails the rows are
   * deleted again (no row waits for a workflow that never ran) and the answer is `503`.
   */
  async start(id: string, start: () => Promise<void>): Promise<void> {
    try {
      await start();
    } catch (err) {
      this.logger.warn(`${this.noun.toLowerCase()} ${id} not started: ${(err as Error).message}`);
      await this.rows.delete(id);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
  }

  /**
   * A cancel up to its audit entry: recorded on the row unless the work is unknown in the workspace
   * (`404`) or has ended (`409`), then the workflow is signalled. A signal that fails is logged, and
   * answered `503` only where the workflow needs it to stop (`signalNeeded`); the record stands
   * either way. Returns the row as it was and as the request left it.
   */
  async cancel(workspaceId: string, id: string, signalNeeded: boolean): Promise<{ found: Row; asked: Row }> {
    const found = await this.rows.getById(workspaceId, id);
    if (!found) {
      throw new NotFoundError(this.noun);
    }
    const asked = await this.rows.requestCancel(workspaceId, id, new Date());
    if (!asked) {
      throw new ConflictError(`The ${this.noun.toLowerCase()} has ended (${found.status}); there is nothing to cancel`);
    }
    try {
      await this.workflows.cancel(id);
    } catch (err) {
      this.logger.warn(`cancel of ${this.noun.toLowerCase()} ${id} not signalled: ${(err as Error).message}`);
      if (signalNeeded) {
        throw new UnavailableError('The scheduler is unavailable; the cancel is recorded, retry to end a wait');
      }
    }
    return { found, asked };
  }
}
