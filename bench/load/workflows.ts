/**
 * Workflows of the native side, bundled by the bench's in-process worker (`workflowsPath`).
 * Deterministic code only: no I/O here, the request is the activity's.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { NativeActivities } from './activities';

// The service's defaults: a 30 s timeout per attempt, 3 attempts from 10 s apart.
const { deliverNative } = proxyActivities<NativeActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3, initialInterval: '10s', backoffCoefficient: 2 },
});

/** Set by the server on every workflow a Schedule starts: the action's nominal time. */
const SCHEDULED_START_TIME = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);
const SCHEDULED_BY_ID = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD);

/**
 * One occurrence of a native Schedule: one activity that POSTs to the receiver. The occurrence
 * time comes from the Schedule's search attribute; `scheduledAtIso` is only for a manual start.
 */
export async function nativeDeliver(url: string, scheduledAtIso?: string): Promise<void> {
  const attributes = workflowInfo().typedSearchAttributes;
  await deliverNative({
    url,
    scheduledAt: attributes.get(SCHEDULED_START_TIME)?.toISOString() ?? scheduledAtIso ?? null,
    scheduleId: attributes.get(SCHEDULED_BY_ID) ?? '',
  });
}

/** Returns at once: the server's ceiling of started-and-completed workflows per second. */
export async function noop(): Promise<void> {}
