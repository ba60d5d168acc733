import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AppConfig } from '@svc/common';
import {
  alertLinks,
  type AlertSender,
  composeAlert,
  signVerificationToken,
  verificationLink,
  verificationMail,
} from '@svc/delivery';
import type { AlertChannelsRepository, AlertEventsRepository } from '@svc/persistence';
import type { AlertActivities } from '@svc/workflow-contract/activity-types';
import { ALERT_REFUSED } from '@svc/workflow-contract/definitions';

const HEARTBEAT_EVERY_MS = 2_000;

export interface AlertActivityDeps {
  alertEvents: AlertEventsRepository;
  alertChannels: AlertChannelsRepository;
  alertSender: AlertSender;
  /** Signs confirmation links (derived from `secrets.encryption_key`). */
  verificationKey: Buffer;
  config: AppConfig;
  clock: () => Date;
}

/**
 * The activities of alert workflows (docs/alerts.md), on the alerts task queue. Planning and the
 * delivery rows make them idempotent: a delivery marked `sent` is never sent again, so only a
 * worker lost between the receiver's answer and that mark can cause a second copy — with the same
 * event id (`webhook-id`, `Svc-Event-Id`, the mail's Message-ID).
 */
export function createAlertActivities(deps: AlertActivityDeps): AlertActivities {
  const { alertEvents, alertChannels, alertSender, verificationKey, config, clock } = deps;

  /** Runs `send` with a heartbeat, so a worker that dies mid-send is noticed within the heartbeat timeout. */
  async function heartbeating<T>(send: () => Promise<T>): Promise<T> {
    const context = Context.current();
    const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await send();
    } finally {
      clearInterval(timer);
    }
  }

  function notSent(error: string, permanent: boolean): ApplicationFailure {
    return ApplicationFailure.create({
      message: error,
      type: permanent ? ALERT_REFUSED : 'AlertNotSent',
      nonRetryable: permanent,
    });
  }

  return {
    async planAlert({ eventId }) {
      const planned = await alertEvents.plan(eventId);
      return { channelIds: planned?.pendingChannelIds ?? [] };
    },

    async sendAlert({ eventId, channelId }) {
      const delivery = await alertEvents.deliveryContext(eventId, channelId);
      if (!delivery || delivery.status !== 'pending') {
        return delivery?.status === 'sent' ? 'sent' : 'skipped';
      }
      const { channel, event } = delivery;
      if (!channel || (channel.kind === 'email' && !channel.verified)) {
        const why = channel ? 'the address is not verified' : 'the channel was deleted';
        await alertEvents.recordAttempt(eventId, channelId, { status: 'skipped', error: why, at: clock() });
        return 'skipped';
      }
      const message = composeAlert(event, alertLinks(config, event.jobId, event.runId), config.service_name);
      const result = await heartbeating(() =>
        alertSender.send(
          {
            id: channel.id,
            name: channel.name,
            kind: channel.kind,
            config: channel.config,
            signingSecret: channel.signingSecret,
          },
          message,
          event,
          clock().getTime(),
        ),
      );
      if (result.delivered) {
        await alertEvents.recordAttempt(eventId, channelId, { status: 'sent', error: null, at: clock() });
        return 'sent';
      }
      const error = result.error ?? 'not sent';
      await alertEvents.recordAttempt(eventId, channelId, {
        status: result.permanent ? 'failed' : 'pending',
        error,
        at: clock(),
      });
      throw notSent(error, result.permanent);
    },

    async recordAlertFailure({ eventId, channelId, error }) {
      await alertEvents.markFailed(eventId, channelId, error);
    },

    async sendChannelVerification({ channelId }) {
      const channel = await alertChannels.findByIdUnscoped(channelId);
      if (!channel || channel.kind !== 'email' || channel.verified) {
        return 'skipped';
      }
      const address = String(channel.config.address);
      const now = clock();
      const token = signVerificationToken(verificationKey, { channelId, address }, now.getTime());
      const mail = verificationMail(config.service_name, channel.name, verificationLink(config.public_url, token));
      const result = await heartbeating(() =>
        alertSender.mail(address, mail, { messageKey: `verify.${channelId}.${now.getTime()}` }),
      );
      if (!result.delivered) {
        throw notSent(result.error ?? 'not sent', result.permanent);
      }
      return 'sent';
    },
  };
}
