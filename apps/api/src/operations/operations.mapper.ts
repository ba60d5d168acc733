import type { OperationEntity, OperationItemEntity, OperationProgress } from '@svc/persistence';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The operation resource (`GET /operations/{id}`): what was asked, how far it has come, what was refused. */
export function toOperationResponse(
  operation: OperationEntity,
  progress: OperationProgress,
  refused: OperationItemEntity[],
) {
  return {
    id: operation.id,
    kind: operation.kind,
    action: operation.action,
    status: operation.status,
    note: operation.note,
    resume_at: iso(operation.resumeAt),
    filter: operation.filter,
    matched: operation.matched,
    pending: progress.pending,
    done: progress.done,
    failed: progress.failed,
    resumed: progress.resumed,
    errors: refused.map((item) => ({ target_id: item.targetId, error: item.error ?? '' })),
    created_by: operation.actor,
    created_at: operation.createdAt.toISOString(),
    updated_at: operation.updatedAt.toISOString(),
    cancel_requested_at: iso(operation.cancelRequestedAt),
    finished_at: iso(operation.finishedAt),
  };
}

export type OperationResponse = ReturnType<typeof toOperationResponse>;
