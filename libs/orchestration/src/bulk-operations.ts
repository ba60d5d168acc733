import { DomainError } from '@svc/common';
import type { OperationEntity, OperationItemEntity, OperationsRepository } from '@svc/persistence';
import type { OperationStep } from '@svc/workflow-contract/activity-types';
import type { JobLifecycle } from './job-lifecycle';

/** Items handled per activity (one batch), and at most this many at once within it (pacing). */
export const OPERATION_BATCH_SIZE = 50;
export const OPERATION_CONCURRENCY = 5;

/**
 * Whether a job's sink goes to `host` (a bulk filter's `sink_host`): a webhook whose URL's host name
 * is `host` (case-insensitive), or, when `host` names a port (`hooks.example.com:8443`), whose
 * host and port (the scheme's default when the URL gives none) are those.
 */
export function matchesSinkHost(sinkKind: string, sinkConfig: Record<string, unknown>, host: string): boolean {
  if (sinkKind !== 'webhook' || typeof sinkConfig.url !== 'string') {
    return false;
  }
  let url: URL;
  try {
    url = new URL(sinkConfig.url);
  } catch {
    return false;
  }
  const wanted = host.toLowerCase();
  if (!/:\d+$/.test(wanted)) {
    return url.hostname.toLowerCase() === wanted;
  }
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  return `${url.hostname.toLowerCase()}:${port}` === wanted;
}

/** What the Temporal Web UI shows of an operation (its workflow's summary): the action, the count, the note. */
export function operationSummary(operation: Pick<OperationEntity, 'action' | 'matched' | 'note' | 'resumeAt'>): string {
  const what = operation.action === 'retry' ? 'failed runs' : 'jobs';
  return [
    `${operation.action} ${operation.matched} ${what}`,
    operation.resumeAt ? `until ${operation.resumeAt.toISOString()}` : null,
    operation.note ? `“${operation.note.slice(0, 120)}”` : null,
  ]
    .filter((part) => part !== null)
    .join(' · ');
}

export interface BulkOperationsDeps {
  operations: OperationsRepository;
  lifecycle: JobLifecycle;
  clock?: () => Date;
}

type ItemOutcome = { status: 'done'; resultId?: string } | { status: 'failed'; error: string };

/**
 * Carries out bulk operations for their workflow's activities: each item through the
 * job lifecycle's own method for its action (pause, resume, enable, trigger, delete, and a recover's
 * manual retry), so a bulk action follows exactly the rules of the single call, its note in each
 * audit entry. An item the lifecycle refuses (`409`, `404`, `429`) is recorded as failed with the
 * reason; anything else (Temporal or PostgreSQL unreachable) fails the batch, which Temporal
 * retries, and the items already handled are not handled again.
 */
export class BulkOperations {
  private readonly clock: () => Date;

  constructor(private readonly deps: BulkOperationsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async applyBatch(operationId: string): Promise<{ remaining: number; cancelled: boolean }> {
    const { operations } = this.deps;
    const items = await operations.nextPending(operationId, OPERATION_BATCH_SIZE);
    for (let start = 0; start < items.length; start += OPERATION_CONCURRENCY) {
      // Read before each group: a cancel stops the operation within a few items.
      const operation = await operations.findByIdUnscoped(operationId);
      if (!operation || operation.cancelRequestedAt) {
        return { remaining: (await operations.progress(operationId)).pending, cancelled: true };
      }
      await Promise.all(
        items.slice(start, start + OPERATION_CONCURRENCY).map(async (item) => {
          const outcome = await this.applyItem(operation, item);
          await operations.finishItem(operationId, item.seq, outcome);
        }),
      );
    }
    const operation = await operations.findByIdUnscoped(operationId);
    const { pending } = await operations.progress(operationId);
    return { remaining: pending, cancelled: !operation || operation.cancelRequestedAt !== null };
  }

  /**
   * The end of a pause's maintenance window: resumes the next batch of the jobs it paused, each
   * only while it is still paused by this window (`windowEnd`); a job resumed by hand or paused
   * again since is left as it is.
   */
  async resumeBatch(operationId: string, afterSeq: number): Promise<{ nextSeq: number | null }> {
    const { operations, lifecycle } = this.deps;
    const operation = await operations.findByIdUnscoped(operationId);
    // A cancel recorded while its signal could not be sent still ends the window with nothing resumed.
    if (!operation?.resumeAt || operation.cancelRequestedAt) {
      return { nextSeq: null };
    }
    const windowEnd = operation.resumeAt;
    const items = await operations.doneItemsAfter(operationId, afterSeq, OPERATION_BATCH_SIZE);
    for (let start = 0; start < items.length; start += OPERATION_CONCURRENCY) {
      await Promise.all(
        items.slice(start, start + OPERATION_CONCURRENCY).map(async (item) => {
          if (item.resumedAt) {
            return;
          }
          const resumed = await refusalAsNull(() =>
            lifecycle.transition(operation.workspaceId, item.targetId, 'resume', 'system', {
              note: operation.note,
              operationId,
              windowEnd,
            }),
          );
          if (resumed) {
            await operations.markResumed(operationId, item.seq, this.clock());
          }
        }),
      );
    }
    return { nextSeq: items.length < OPERATION_BATCH_SIZE ? null : items[items.length - 1].seq };
  }

  /** Moves the operation on; one that ends with a cancel recorded ends `cancelled`. */
  async setStatus(operationId: string, status: OperationStep): Promise<void> {
    const { operations } = this.deps;
    const cancelled = status !== 'waiting' && (await operations.findByIdUnscoped(operationId))?.cancelRequestedAt;
    await operations.setStatus(operationId, cancelled ? 'cancelled' : status, this.clock());
  }

  private async applyItem(operation: OperationEntity, item: OperationItemEntity): Promise<ItemOutcome> {
    const { lifecycle } = this.deps;
    const { workspaceId, actor } = operation;
    const context = { note: operation.note, operationId: operation.id };
    try {
      switch (operation.action) {
        case 'pause':
          await lifecycle.transition(workspaceId, item.targetId, 'pause', actor, {
            ...context,
            resumeAt: operation.resumeAt,
          });
          return { status: 'done' };
        case 'resume':
        case 'enable':
          await lifecycle.transition(workspaceId, item.targetId, operation.action, actor, context);
          return { status: 'done' };
        case 'trigger':
          return {
            status: 'done',
            resultId: (await lifecycle.trigger(workspaceId, item.targetId, actor, context)).runId,
          };
        case 'delete':
          await lifecycle.delete(workspaceId, item.targetId, actor, context);
          return { status: 'done' };
        case 'retry':
          return {
            status: 'done',
            resultId: (await lifecycle.retryRun(workspaceId, item.targetId, actor, context)).run.id,
          };
      }
    } catch (err) {
      if (isRefusal(err)) {
        return { status: 'failed', error: err.message };
      }
      throw err;
    }
  }
}

/** The lifecycle refused the item (a 4xx: conflict, not found, a limit): the item fails, not the batch. */
function isRefusal(err: unknown): err is DomainError {
  return err instanceof DomainError && err.status < 500;
}

async function refusalAsNull<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (err) {
    if (isRefusal(err)) {
      return null;
    }
    throw err;
  }
}
