import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type AppConfig,
  ConflictError,
  CURSORS,
  NotFoundError,
  type Page,
  readKeysetPage,
  RateLimitedError,
  UnavailableError,
  ValidationFailedError,
} from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import {
  type AlertChannelKind,
  AlertSender,
  composeTestAlert,
  generateSigningSecret,
  networkRulesOf,
  smtpMissing,
  verifyVerificationToken,
} from '@svc/delivery';
import { AlertChannelsRepository, AuditRepository, Transactions } from '@svc/persistence';
import { AlertWorkflowGateway } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { sealedFieldReplay } from '../common/idempotency/caller-seal';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { APP_CONFIG } from '../config/config.module';
import { checkChannelConfig } from './alert-channel-config';
import { type AlertChannelResponse, type CreatedAlertChannelResponse, toAlertChannelResponse } from './alerts.mapper';
import { CreateAlertChannelDto, ListAlertChannelsQueryDto, UpdateAlertChannelDto } from './dto/alert-channel.dto';

/** Key of the verification-link signing key provider (derived from `secrets.encryption_key`). */
export const ALERT_VERIFICATION_KEY = Symbol('ALERT_VERIFICATION_KEY');

const CREATE_SCOPE = 'POST /api/v1/alert-channels';
/** Confirmation mails of one channel: at most one a minute (resends of a typo'd address spam nobody). */
export const VERIFICATION_RESEND_GAP_MS = 60_000;
/** A channel test waits this long for the receiver at most. */
const TEST_TIMEOUT_MS = 10_000;

export interface ChannelTestResult {
  delivered: boolean;
  error: string | null;
}

export interface VerifiedChannel {
  verified: true;
  channel_id: string;
  address: string;
}

/**
 * Alert channels (docs/alerts.md; decisions.md → Alert channels): CRUD with audit entries, the
 * webhook signing secret shown once, email confirmation (signed 24 h links, mailed by a Temporal
 * workflow on the alerts queue) and the synchronous channel test.
 */
@Injectable()
export class AlertChannelsService {
  private readonly logger = new Logger(AlertChannelsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly channels: AlertChannelsRepository,
    private readonly audit: AuditRepository,
    private readonly idempotency: IdempotencyService,
    private readonly sender: AlertSender,
    private readonly workflows: AlertWorkflowGateway,
    @Inject(ALERT_VERIFICATION_KEY) private readonly verificationKey: Buffer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  list(auth: AuthContext, query: ListAlertChannelsQueryDto): Promise<Page<AlertChannelResponse>> {
    return readKeysetPage(query, {
      format: CURSORS.alertChannels,
      fetch: (after, limit) => this.channels.listPage(auth.workspaceId, { beforeId: after?.id, limit }),
      keyOf: ({ id }) => ({ id }),
      toItem: toAlertChannelResponse,
    });
  }

  async get(auth: AuthContext, id: string): Promise<AlertChannelResponse> {
    const channel = await this.channels.findById(auth.workspaceId, id);
    if (!channel) {
      throw new NotFoundError('Alert channel');
    }
    return toAlertChannelResponse(channel);
  }

  /**
   * Creates a channel with its `alert_channel.create` audit entry. Email channels start unverified
   * and are mailed a confirmation link (when SMTP is configured); webhook channels get a `whsec_`
   * secret, returned in this response only (an idempotent replay returns it to the same caller).
   */
  create(
    auth: AuthContext,
    dto: CreateAlertChannelDto,
    request: { idempotencyKey?: string; credential: string },
  ): Promise<CreatedAlertChannelResponse> {
    const { idempotencyKey, credential } = request;
    return this.idempotency.execute(
      auth,
      CREATE_SCOPE,
      idempotencyKey,
      dto,
      () => this.insert(auth, dto),
      idempotencyKey === undefined
        ? undefined
        : sealedFieldReplay<CreatedAlertChannelResponse>(
            'signing_secret',
            credential,
            `${auth.workspaceId}\n${idempotencyKey}`,
          ),
    );
  }

  private async insert(auth: AuthContext, dto: CreateAlertChannelDto): Promise<CreatedAlertChannelResponse> {
    const config = checkChannelConfig(dto.kind, dto.config, networkRulesOf(this.config));
    const signingSecret = dto.kind === 'webhook' ? generateSigningSecret() : null;
    const now = new Date();
    const channel = await this.transactions.run(async (manager) => {
      const created = await this.channels.insert(
        {
          id: newId('channel', now.getTime()),
          workspaceId: auth.workspaceId,
          name: dto.name,
          kind: dto.kind,
          config,
          verified: dto.kind !== 'email',
          signingSecret,
        },
        manager,
      );
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: 'alert_channel.create',
          target: created.id,
          details: { name: created.name, kind: created.kind },
        },
        manager,
      );
      return created;
    });
    if (channel.kind === 'email') {
      await this.mailConfirmation(auth.workspaceId, channel.id, now);
    }
    const response: CreatedAlertChannelResponse = toAlertChannelResponse(channel);
    if (signingSecret) {
      response.signing_secret = signingSecret;
    }
    return response;
  }

  /**
   * Renames and/or reconfigures a channel (`alert_channel.update`). A new email address is
   * unverified again and is mailed a new link; links sent to the old address stop working.
   */
  async update(auth: AuthContext, id: string, dto: UpdateAlertChannelDto): Promise<AlertChannelResponse> {
    const now = new Date();
    const { channel, readdressed } = await this.transactions.run(async (manager) => {
      const current = await this.channels.getForUpdate(auth.workspaceId, id, manager);
      if (!current) {
        throw new NotFoundError('Alert channel');
      }
      const kind = current.kind as AlertChannelKind;
      const config = dto.config ? checkChannelConfig(kind, dto.config, networkRulesOf(this.config)) : current.config;
      const readdressed = kind === 'email' && config.address !== current.config.address;
      const changed = [
        ...(dto.name !== undefined && dto.name !== current.name ? ['name'] : []),
        ...(dto.config && JSON.stringify(config) !== JSON.stringify(current.config) ? ['config'] : []),
      ];
      const updated = await this.channels.update(
        auth.workspaceId,
        id,
        { name: dto.name ?? current.name, config, verified: readdressed ? false : current.verified, readdressed },
        manager,
      );
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: 'alert_channel.update',
          target: id,
          details: { changed, ...(readdressed ? { verified: false } : {}) },
        },
        manager,
      );
      return { channel: updated!, readdressed };
    });
    if (readdressed) {
      await this.mailConfirmation(auth.workspaceId, id, now);
    }
    return toAlertChannelResponse(channel);
  }

  /** Deletes a channel (`alert_channel.delete`); rules that named it stop sending to it. */
  async remove(auth: AuthContext, id: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const current = await this.channels.getForUpdate(auth.workspaceId, id, manager);
      if (!current) {
        throw new NotFoundError('Alert channel');
      }
      await this.channels.delete(auth.workspaceId, id, manager);
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: 'alert_channel.delete',
          target: id,
          details: { name: current.name, kind: current.kind },
        },
        manager,
      );
    });
  }

  /**
   * Sends a test alert now and says whether it arrived (`200 {delivered, error}`): the same
   * transport, signing and network rules as real alerts. Unverified addresses, and email on a
   * server without SMTP, get nothing; the error says what to do.
   */
  async test(auth: AuthContext, id: string): Promise<ChannelTestResult> {
    const channel = await this.channels.findWithSecret(auth.workspaceId, id);
    if (!channel) {
      throw new NotFoundError('Alert channel');
    }
    if (channel.kind === 'email') {
      const missing = smtpMissing(this.config.smtp);
      if (missing) {
        return { delivered: false, error: missing };
      }
      if (!channel.verified) {
        return {
          delivered: false,
          error: `the address is not verified yet: follow the link in the confirmation mail, or POST /api/v1/alert-channels/${id}/verify to send a new one`,
        };
      }
    }
    const now = new Date();
    const eventId = `evt_test_${newId('channel', now.getTime()).slice(3)}`;
    const message = composeTestAlert(eventId, channel.name, this.config.service_name, now);
    const sender = this.sender.withTimeout(TEST_TIMEOUT_MS);
    const result = await sender.send(channel, message, null, now.getTime());
    return { delivered: result.delivered, error: result.error };
  }

  /**
   * `POST …/verify`: mails a new confirmation link (`202`). `409 conflict` for channels that need
   * none (verified, or not email) and on a server without SMTP (the message names the settings);
   * `429 rate_limited` within a minute of the previous mail.
   */
  async resendVerification(auth: AuthContext, id: string): Promise<{ channel_id: string; address: string }> {
    const channel = await this.channels.findById(auth.workspaceId, id);
    if (!channel) {
      throw new NotFoundError('Alert channel');
    }
    if (channel.kind !== 'email') {
      throw new ConflictError(`Only email channels are confirmed; this is a ${channel.kind} channel`);
    }
    if (channel.verified) {
      throw new ConflictError('This address is already verified');
    }
    const missing = smtpMissing(this.config.smtp);
    if (missing) {
      throw new ConflictError(`No confirmation can be mailed: ${missing}`);
    }
    const sent = await this.mailConfirmation(auth.workspaceId, id, new Date(), { strict: true });
    if (!sent) {
      throw new RateLimitedError('A confirmation mail was sent to this address less than a minute ago; wait a minute');
    }
    return { channel_id: id, address: String(channel.config.address) };
  }

  /**
   * The link of a confirmation mail: checks the signature and the 24 h expiry, and verifies the
   * channel if it still has the address the link was mailed to (`alert_channel.update`, actor
   * `system`: the link is the credential). Following a link twice is fine.
   */
  async verifyLink(token: string): Promise<VerifiedChannel> {
    const checked = verifyVerificationToken(this.verificationKey, token, Date.now());
    if (!checked.ok) {
      throw new ValidationFailedError(
        {
          token:
            checked.reason === 'expired'
              ? 'this link has expired (links work for 24 hours): ask for a new one with POST /api/v1/alert-channels/{id}/verify'
              : 'not a valid confirmation link',
        },
        'Invalid confirmation link',
      );
    }
    const result = await this.channels.markVerified(checked.channelId, checked.address);
    if (!result) {
      throw new NotFoundError('Alert channel with this address');
    }
    if (result.changed) {
      await this.audit.insert(result.channel.workspaceId, {
        actor: 'system',
        action: 'alert_channel.update',
        target: checked.channelId,
        details: { changed: ['verified'], verified: true },
      });
    }
    return { verified: true, channel_id: checked.channelId, address: checked.address };
  }

  /**
   * Starts the workflow that mails a confirmation link, at most once a minute per channel. Without
   * SMTP nothing is sent (the channel stays unverified; `test` and `verify` say why). On create and
   * update a failure to reach Temporal is logged, not returned (the channel is saved; `verify`
   * resends); with `strict` it is `503`. False when throttled.
   */
  private async mailConfirmation(
    workspaceId: string,
    channelId: string,
    now: Date,
    options: { strict?: boolean } = {},
  ): Promise<boolean> {
    if (smtpMissing(this.config.smtp)) {
      return false;
    }
    try {
      return await this.transactions.run(async (manager) => {
        const claimed = await this.channels.claimVerificationSend(
          workspaceId,
          channelId,
          now,
          VERIFICATION_RESEND_GAP_MS,
          manager,
        );
        if (claimed) {
          await this.workflows.startVerification(channelId, String(now.getTime()));
        }
        return claimed;
      });
    } catch (err) {
      if (options.strict) {
        throw new UnavailableError('The confirmation mail could not be queued (Temporal unreachable); retry');
      }
      this.logger.warn(`confirmation mail for ${channelId} not queued: ${(err as Error).message}`);
      return false;
    }
  }
}
