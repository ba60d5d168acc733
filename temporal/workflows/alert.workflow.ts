import { proxyActivities } from '@temporalio/workflow';
import type { AlertActivities } from '@svc/workflow-contract/activity-types';
import {
  ALERT_REFUSED,
  type AlertWorkflowInput,
  type ChannelVerificationInput,
} from '@svc/workflow-contract/definitions';
import { failureMessage } from './failure-message';

/**
 * How long an alert keeps trying: 5 s, 10 s, 20 s … capped at 10 min, 12 attempts (about an
 * hour). Each try has its own deadline and heartbeat, so a worker that dies mid-send is noticed
 * within seconds and another worker sends again (same event id, so receivers can fold the copy).
 */
export const ALERT_SEND_ATTEMPTS = 12;

/** Database bookkeeping: retried until it works (a database outage delays, never loses, an alert). */
const bookkeeping = proxyActivities<AlertActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

const sending = proxyActivities<AlertActivities>({
  startToCloseTimeout: '60s',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '5s',
    backoffCoefficient: 2,
    maximumInterval: '10m',
    maximumAttempts: ALERT_SEND_ATTEMPTS,
    nonRetryableErrorTypes: [ALERT_REFUSED],
  },
});

const confirming = proxyActivities<AlertActivities>({
  startToCloseTimeout: '60s',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '5s',
    backoffCoefficient: 2,
    maximumInterval: '5m',
    maximumAttempts: 6,
    nonRetryableErrorTypes: [ALERT_REFUSED],
  },
});

export interface AlertWorkflowResult {
  channels: number;
  sent: number;
  failed: number;
}

/**
 * One per alert event (workflow id = event id): decides the channels once, then sends to each in
 * parallel with its own retries, so one failing channel delays neither the others nor any job.
 */
export async function alertWorkflow(input: AlertWorkflowInput): Promise<AlertWorkflowResult> {
  const { channelIds } = await bookkeeping.planAlert({ eventId: input.eventId });
  const outcomes = await Promise.all(
    channelIds.map(async (channelId) => {
      try {
        return await sending.sendAlert({ eventId: input.eventId, channelId });
      } catch (err) {
        await bookkeeping.recordAlertFailure({ eventId: input.eventId, channelId, error: failureMessage(err) });
        return 'failed' as const;
      }
    }),
  );
  return {
    channels: channelIds.length,
    sent: outcomes.filter((o) => o === 'sent').length,
    failed: outcomes.filter((o) => o === 'failed').length,
  };
}

/** Mails a confirmation link to an email channel (on create, address change and resend). */
export async function channelVerificationWorkflow(input: ChannelVerificationInput): Promise<string> {
  return confirming.sendChannelVerification({ channelId: input.channelId });
}
