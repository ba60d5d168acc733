import { Body, Controller, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { DomainError } from '@svc/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Public, Scopes } from '../auth/auth.decorators';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { AlertChannelIdPipe } from './alert-id.pipes';
import { AlertChannelsService } from './alert-channels.service';
import {
  CreateAlertChannelDto,
  ListAlertChannelsQueryDto,
  UpdateAlertChannelDto,
  VerifyAlertChannelQueryDto,
} from './dto/alert-channel.dto';
import { verificationErrorPage, verificationPage } from './verification-page';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import {
  ALERT_CHANNEL_PAGE_SCHEMA,
  ALERT_CHANNEL_SCHEMA,
  CHANNEL_TEST_SCHEMA,
  CHANNEL_VERIFIED_SCHEMA,
  CREATED_ALERT_CHANNEL_SCHEMA,
  VERIFICATION_SENT_SCHEMA,
} from './alert-response.schema';
import { DeleteRoute, GetRoute, PostRoute } from '../auth/route.decorators';

/** Alert channels need a full-access key (decisions.md → Scopes), except the emailed confirmation link. */
@Controller('api/v1/alert-channels')
export class AlertChannelsController {
  constructor(private readonly channels: AlertChannelsService) {}

  /** Channels of the workspace, newest first; never a signing secret. */
  @GetRoute('', '*', 'List alert channels, newest first', ALERT_CHANNEL_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListAlertChannelsQueryDto) {
    return this.channels.list(auth, query);
  }

  /**
   * The link of a confirmation mail; no login. JSON `{verified, channel_id, address}`, or a short
   * page for a browser (`Accept: text/html`). Declared before `:id` so `verify` is not an id.
   */
  @Get('verify')
  @Public()
  @ApiOperation(
    'Confirm an email channel from the link of its confirmation mail (no login)',
    { 200: CHANNEL_VERIFIED_SCHEMA },
    'Answers a short HTML page instead when the client accepts `text/html` (a browser following the mailed link).',
  )
  async verify(
    @Query() query: VerifyAlertChannelQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const browser = accept?.includes('text/html') ?? false;
    try {
      const result = await this.channels.verifyLink(query.token);
      if (browser) {
        void reply.type('text/html; charset=utf-8');
        return verificationPage(result.address);
      }
      return result;
    } catch (err) {
      // A person following a mailed link gets a page saying what to do; API clients the envelope.
      if (browser && err instanceof DomainError) {
        void reply.status(err.status).type('text/html; charset=utf-8');
        return verificationErrorPage(Object.values(err.body.fields ?? {})[0] ?? err.message);
      }
      throw err;
    }
  }

  /** `201`; webhook channels carry `signing_secret` in this response only. `Idempotency-Key` supported. */
  @Post()
  @Scopes('*')
  @ApiOperation('Create an alert channel; webhook channels get their signing secret in this response only', {
    201: CREATED_ALERT_CHANNEL_SCHEMA,
  })
  @Idempotent({ sealed: 'signing_secret' })
  create(@Auth() auth: AuthContext, @Body() body: CreateAlertChannelDto) {
    return this.channels.create(auth, body);
  }

  @GetRoute(':id', '*', 'Get an alert channel', ALERT_CHANNEL_SCHEMA)
  get(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string) {
    return this.channels.get(auth, id);
  }

  @Patch(':id')
  @Scopes('*')
  @ApiOperation('Rename or reconfigure an alert channel (a new email address is unverified again)', {
    200: ALERT_CHANNEL_SCHEMA,
  })
  update(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string, @Body() body: UpdateAlertChannelDto) {
    return this.channels.update(auth, id, body);
  }

  /** `204`; rules that named the channel stop sending to it. */
  @DeleteRoute(':id', '*', 'Delete an alert channel; rules stop sending to it')
  async remove(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string): Promise<void> {
    await this.channels.remove(auth, id);
  }

  /** `200 {delivered, error}`: sends a test alert through the channel now. */
  @PostRoute(':id/test', 200, '*', 'Send a test alert through the channel now', CHANNEL_TEST_SCHEMA)
  test(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string) {
    return this.channels.test(auth, id);
  }

  /** `202`: mails a new confirmation link to an unverified email channel. */
  @PostRoute(
    ':id/verify',
    202,
    '*',
    'Mail a new confirmation link to an unverified email channel',
    VERIFICATION_SENT_SCHEMA,
  )
  resend(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string) {
    return this.channels.resendVerification(auth, id);
  }
}
