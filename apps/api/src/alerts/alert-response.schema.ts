import { ALERT_EVENT_TYPES } from '@svc/common/alert-events';
import { ALERT_CHANNEL_KINDS } from '@svc/delivery';
import {
  arrayOf,
  boolean,
  enumOf,
  idOf,
  named,
  nullable,
  object,
  pageOf,
  string,
  timestamp,
} from '../common/openapi/schema';

const channelFields = {
  id: idOf('ch'),
  name: string,
  kind: enumOf(ALERT_CHANNEL_KINDS),
  config: {
    type: 'object',
    description:
      '`email`: `{address}`; `webhook`: `{url}`; `slack`: `{webhook_url}`, shown up to its first path segment (the URL is a credential).',
    additionalProperties: { type: 'string' },
  },
  verified: {
    ...boolean,
    description: 'Email channels start `false` until the mailed link is followed; other kinds are `true`.',
  },
  created_at: timestamp,
  updated_at: timestamp,
};

/** An alert channel (alerts.mapper.ts); never its signing secret. */
export const ALERT_CHANNEL_SCHEMA = named('AlertChannel', object(channelFields));

/** `201` of channel creation: webhook channels add their `signing_secret`, shown this once. */
export const CREATED_ALERT_CHANNEL_SCHEMA = named(
  'CreatedAlertChannel',
  object(
    {
      ...channelFields,
      signing_secret: {
        type: 'string',
        pattern: '^whsec_',
        description: 'Webhook channels only: signs every alert (Standard Webhooks); shown this once.',
      },
    },
    ['signing_secret'],
  ),
);

export const ALERT_CHANNEL_PAGE_SCHEMA = pageOf('AlertChannelPage', ALERT_CHANNEL_SCHEMA);

export const CHANNEL_TEST_SCHEMA = named(
  'AlertChannelTestResult',
  object({
    delivered: boolean,
    error: {
      ...nullable(string),
      description: 'Why it was not delivered: the answer, the SMTP reply or what is missing.',
    },
  }),
);

export const VERIFICATION_SENT_SCHEMA = named(
  'AlertChannelVerificationSent',
  object({ channel_id: idOf('ch'), address: string }),
);

export const CHANNEL_VERIFIED_SCHEMA = named(
  'AlertChannelVerified',
  object({ verified: { type: 'boolean', const: true }, channel_id: idOf('ch'), address: string }),
);

/** An alert rule (alerts.mapper.ts). */
export const ALERT_RULE_SCHEMA = named(
  'AlertRule',
  object({
    id: idOf('rule'),
    name: string,
    enabled: boolean,
    channel_ids: arrayOf(idOf('ch')),
    events: arrayOf(enumOf(ALERT_EVENT_TYPES)),
    job_ids: nullable(arrayOf(string)),
    tags: nullable(arrayOf(string)),
    cooldown: { type: 'string', description: 'Normalized duration, e.g. `15m`; `0s` for none.' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const ALERT_RULE_PAGE_SCHEMA = pageOf('AlertRulePage', ALERT_RULE_SCHEMA);
