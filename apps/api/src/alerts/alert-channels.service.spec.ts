import type { AppConfig } from '@svc/common';
import { type AlertSender, signVerificationToken } from '@svc/delivery';
import type { AlertWorkflowGateway } from '@svc/orchestration';
import { randomBytes } from 'node:crypto';
import { authFor, InMemoryDatabase, kitConfig, OTHER_WORKSPACE } from '../../../../test/kit';
import { AlertChannelsService } from './alert-channels.service';
import type { CreateAlertChannelDto, UpdateAlertChannelDto } from './dto/alert-channel.dto';

/**
 * AlertChannelsService over the in-memory kit with a recording sender and workflow gateway: the
 * config checks, the webhook secret shown once, email confirmation (mailed at most once a minute,
 * a new address unverified again, signed links), the channel test's refusals, tenant isolation.
 */
const SMTP = { smtp: { host: 'smtp.example.com', from: 'alerts@example.com' } };

describe('AlertChannelsService', () => {
  const auth = authFor();
  const key = randomBytes(32);
  let db: InMemoryDatabase;
  let sends: Array<{ channel: { id: string }; message: unknown }>;
  let verifications: string[];
  let gatewayDown: boolean;

  const serviceWith = (config: AppConfig) => {
    const { transactions, alertChannels, audit } = db.repositories;
    const sender = {
      withTimeout: () => sender,
      send: async (channel: { id: string }, message: unknown) => {
        sends.push({ channel, message });
        return { delivered: true, error: null };
      },
    };
    const workflows = {
      startVerification: async (channelId: string) => {
        if (gatewayDown) {
          throw new Error('temporal unavailable');
        }
        verifications.push(channelId);
      },
    };
    return new AlertChannelsService(
      transactions,
      alertChannels,
      audit,
      sender as unknown as AlertSender,
      workflows as unknown as AlertWorkflowGateway,
      key,
      config,
    );
  };

  let service: AlertChannelsService;

  beforeEach(() => {
    db = new InMemoryDatabase();
    sends = [];
    verifications = [];
    gatewayDown = false;
    service = serviceWith(kitConfig(SMTP));
  });

  const webhook = {
    name: 'ops hook',
    kind: 'webhook',
    config: { url: 'https://example.com/alerts' },
  } as CreateAlertChannelDto;
  const email = { name: 'ops mail', kind: 'email', config: { address: 'ops@example.com' } } as CreateAlertChannelDto;
  const stored = (id: string) => db.table<Record<string, unknown>>('alert_channels').get(id);

  describe('create', () => {
    it('should create a webhook channel verified, answer its signing secret once, and audit it', async () => {
      const created = await service.create(auth, webhook);
      expect(created).toMatchObject({
        kind: 'webhook',
        verified: true,
        signing_secret: expect.stringMatching(/^whsec_/),
      });
      expect(stored(created.id)).toMatchObject({ signingSecret: created.signing_secret });
      await expect(service.get(auth, created.id)).resolves.not.toHaveProperty('signing_secret');
      expect(db.audited()).toEqual([
        {
          actor: auth.actor,
          action: 'alert_channel.create',
          target: created.id,
          details: { name: 'ops hook', kind: 'webhook' },
        },
      ]);
    });

    it('should create an email channel unverified and queue its confirmation mail', async () => {
      const created = await service.create(auth, email);
      expect(created).toMatchObject({ kind: 'email', verified: false });
      expect(created).not.toHaveProperty('signing_secret');
      expect(verifications).toEqual([created.id]);
    });

    it('should save an email channel when Temporal is unreachable (the mail can be resent)', async () => {
      gatewayDown = true;
      const created = await service.create(auth, email);
      expect(stored(created.id)).toBeDefined();
      expect(verifications).toEqual([]);
    });

    it('should refuse a config of another kind or a bad address (400 naming config fields) and write nothing', async () => {
      const bad = { name: 'x', kind: 'email', config: { address: 'not an address', url: 'https://x' } };
      await expect(service.create(auth, bad as CreateAlertChannelDto)).rejects.toMatchObject({
        status: 400,
        body: {
          fields: { 'config.address': expect.any(String), 'config.url': expect.stringContaining('unknown field') },
        },
      });
      expect(db.table('alert_channels').size).toBe(0);
      expect(db.tables.audit).toEqual([]);
    });
  });

  describe('update', () => {
    it('should make a new email address unverified again and mail it', async () => {
      const created = await service.create(auth, email);
      stored(created.id)!.verified = true;
      stored(created.id)!.verificationSentAt = null;
      const updated = await service.update(auth, created.id, {
        config: { address: 'new@example.com' },
      } as UpdateAlertChannelDto);
      expect(updated).toMatchObject({ verified: false, config: { address: 'new@example.com' } });
      expect(verifications).toEqual([created.id, created.id]);
      expect(db.audited()[1]).toMatchObject({
        action: 'alert_channel.update',
        details: { changed: ['config'], verified: false },
      });
    });

    it('should keep a renamed channel verified and name only what changed', async () => {
      const created = await service.create(auth, webhook);
      await service.update(auth, created.id, {
        name: 'renamed',
        config: { url: 'https://example.com/alerts' },
      } as UpdateAlertChannelDto);
      expect(db.audited()[1].details).toEqual({ changed: ['name'] });
      expect(stored(created.id)).toMatchObject({ name: 'renamed', verified: true });
    });
  });

  describe('remove', () => {
    it('should delete the channel, take it out of the rules, and audit it', async () => {
      const created = await service.create(auth, webhook);
      await db.alertRules.insert(auth.workspaceId, 'rule_1', {
        name: 'r',
        enabled: true,
        channelIds: [created.id],
        events: ['run.failed'],
        jobIds: null,
        tags: null,
        cooldownMs: 1,
      });
      await service.remove(auth, created.id);
      expect(stored(created.id)).toBeUndefined();
      expect((await db.alertRules.findById(auth.workspaceId, 'rule_1'))!.channelIds).toEqual([]);
      expect(db.audited()[1]).toMatchObject({ action: 'alert_channel.delete', target: created.id });
    });
  });

  describe('test', () => {
    it('should send a test alert to a webhook channel and report delivery', async () => {
      const created = await service.create(auth, webhook);
      await expect(service.test(auth, created.id)).resolves.toEqual({ delivered: true, error: null });
      expect(sends.map((s) => s.channel.id)).toEqual([created.id]);
    });

    it('should send nothing to an unverified address, nor any email without SMTP, and say why', async () => {
      const created = await service.create(auth, email);
      await expect(service.test(auth, created.id)).resolves.toEqual({
        delivered: false,
        error: expect.stringContaining('not verified'),
      });
      const noSmtp = serviceWith(kitConfig());
      await expect(noSmtp.test(auth, created.id)).resolves.toEqual({
        delivered: false,
        error: expect.stringContaining('email is not configured'),
      });
      expect(sends).toEqual([]);
    });
  });

  describe('email confirmation', () => {
    it('should resend at most once a minute (429), and refuse channels that need none (409)', async () => {
      const created = await service.create(auth, email);
      await expect(service.resendVerification(auth, created.id)).rejects.toMatchObject({
        status: 429,
        body: { code: 'rate_limited' },
      });
      stored(created.id)!.verificationSentAt = new Date(Date.now() - 61_000);
      await expect(service.resendVerification(auth, created.id)).resolves.toEqual({
        channel_id: created.id,
        address: 'ops@example.com',
      });
      const hook = await service.create(auth, webhook);
      await expect(service.resendVerification(auth, hook.id)).rejects.toMatchObject({ status: 409 });
      await expect(serviceWith(kitConfig()).resendVerification(auth, created.id)).rejects.toMatchObject({
        status: 409,
        body: { message: expect.stringContaining('No confirmation can be mailed') },
      });
    });

    it('should answer 503 on a resend when Temporal is unreachable', async () => {
      const created = await service.create(auth, email);
      stored(created.id)!.verificationSentAt = null;
      gatewayDown = true;
      await expect(service.resendVerification(auth, created.id)).rejects.toMatchObject({ status: 503 });
    });

    it('should verify the channel from a signed link once, audited as system; a forged or stale link is 400/404', async () => {
      const created = await service.create(auth, email);
      const token = signVerificationToken(key, { channelId: created.id, address: 'ops@example.com' }, Date.now());
      await expect(service.verifyLink(token)).resolves.toEqual({
        verified: true,
        channel_id: created.id,
        address: 'ops@example.com',
      });
      await service.verifyLink(token);
      expect(db.audited().filter((entry) => entry.actor === 'system')).toEqual([
        {
          actor: 'system',
          action: 'alert_channel.update',
          target: created.id,
          details: { changed: ['verified'], verified: true },
        },
      ]);
      const forged = signVerificationToken(
        randomBytes(32),
        { channelId: created.id, address: 'ops@example.com' },
        Date.now(),
      );
      await expect(service.verifyLink(forged)).rejects.toMatchObject({
        status: 400,
        body: { fields: { token: 'not a valid confirmation link' } },
      });
      const expired = signVerificationToken(
        key,
        { channelId: created.id, address: 'ops@example.com' },
        Date.now() - 2 * 86_400_000,
      );
      await expect(service.verifyLink(expired)).rejects.toMatchObject({
        status: 400,
        body: { fields: { token: expect.stringContaining('expired') } },
      });
      const oldAddress = signVerificationToken(key, { channelId: created.id, address: 'old@example.com' }, Date.now());
      await expect(service.verifyLink(oldAddress)).rejects.toMatchObject({ status: 404 });
    });
  });

  it("should not find, change, test or delete another workspace's channel (404)", async () => {
    const theirs = await service.create(authFor(OTHER_WORKSPACE), webhook);
    const notFound = { status: 404, body: { code: 'not_found', message: 'Alert channel not found' } };
    await expect(service.get(auth, theirs.id)).rejects.toMatchObject(notFound);
    await expect(service.update(auth, theirs.id, { name: 'x' } as UpdateAlertChannelDto)).rejects.toMatchObject(
      notFound,
    );
    await expect(service.test(auth, theirs.id)).rejects.toMatchObject(notFound);
    await expect(service.resendVerification(auth, theirs.id)).rejects.toMatchObject(notFound);
    await expect(service.remove(auth, theirs.id)).rejects.toMatchObject(notFound);
    await expect(service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
    expect(sends).toEqual([]);
  });
});
