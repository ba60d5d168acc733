import { formatDuration } from '@svc/common';
import type { AlertChannelRow, AlertRuleRow } from '@svc/persistence';

/**
 * A Slack incoming-webhook URL is a credential (anyone holding it can post to the channel): it is
 * shown as its origin and first path segment only, like a key's prefix.
 */
export function maskWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const first = parsed.pathname.split('/').filter(Boolean)[0];
    return `${parsed.origin}/${first ? `${first}/` : ''}…`;
  } catch {
    return '…';
  }
}

/** The alert channel as the API returns it; never the signing secret (only the create response adds it). */
export function toAlertChannelResponse(channel: AlertChannelRow) {
  const config: Record<string, unknown> = { ...channel.config };
  if (channel.kind === 'slack' && typeof config.webhook_url === 'string') {
    config.webhook_url = maskWebhookUrl(config.webhook_url);
  }
  return {
    id: channel.id,
    name: channel.name,
    kind: channel.kind,
    config,
    verified: channel.verified,
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}

export type AlertChannelResponse = ReturnType<typeof toAlertChannelResponse>;
export type CreatedAlertChannelResponse = AlertChannelResponse & { signing_secret?: string };

export function toAlertRuleResponse(rule: AlertRuleRow) {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    channel_ids: rule.channelIds,
    events: rule.events,
    job_ids: rule.jobIds,
    tags: rule.tags,
    cooldown: formatDuration(rule.cooldownMs),
    created_at: rule.createdAt.toISOString(),
    updated_at: rule.updatedAt.toISOString(),
  };
}

export type AlertRuleResponse = ReturnType<typeof toAlertRuleResponse>;
