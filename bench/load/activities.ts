/**
 * The one activity of the native side: a webhook request shaped like the service's standard
 * payload (similar size, `Svc-Scheduled-At`), sent with undici as the service's delivery is.
 */
import { Context } from '@temporalio/activity';
import { request } from 'undici';

export interface NativeDelivery {
  url: string;
  /** The occurrence (the Schedule's nominal start time), RFC 3339; `null` if unknown. */
  scheduledAt: string | null;
  scheduleId: string;
}

export function createNativeActivities() {
  return {
    async deliverNative(delivery: NativeDelivery): Promise<number> {
      const { info } = Context.current();
      const attempt = info.attempt - 1;
      const workflowId = info.workflowExecution?.workflowId ?? info.activityId;
      const body = JSON.stringify({
        run_id: workflowId,
        job_id: delivery.scheduleId,
        job_name: delivery.scheduleId,
        scheduled_at: delivery.scheduledAt,
        fired_at: new Date().toISOString(),
        attempt,
      });
      const res = await request(delivery.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': workflowId,
          'svc-attempt': String(attempt),
          ...(delivery.scheduledAt ? { 'svc-scheduled-at': delivery.scheduledAt } : {}),
        },
        body,
      });
      await res.body.dump();
      if (res.statusCode >= 300) {
        throw new Error(`receiver answered ${res.statusCode}`);
      }
      return res.statusCode;
    },
  };
}

export type NativeActivities = ReturnType<typeof createNativeActivities>;
