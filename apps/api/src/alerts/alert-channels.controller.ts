import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Credential, Public, Scopes } from '../common/auth/auth.decorators';
import { AlertChannelIdPipe } from './alert-id.pipes';
import { AlertChannelsService } from './alert-channels.service';
import {
  CreateAlertChannelDto,
  ListAlertChannelsQueryDto,
  UpdateAlertChannelDto,
  VerifyAlertChannelQueryDto,
} from './dto/alert-channel.dto';
import { verificationPage } from './verification-page';

/** Alert channels need a full-access key (decisions.md → Scopes), except the emailed confirmation link. */
@Controller('api/v1/alert-channels')
export class AlertChannelsController {
  constructor(private readonly channels: AlertChannelsService) {}

  /** Channels of the workspace, newest first; never a signing secret. */
  @Get()
  @Scopes('*')
  list(@Auth() auth: AuthContext, @Query() query: ListAlertChannelsQueryDto) {
    return this.channels.list(auth, query);
  }

  /**
   * The link of a confirmation mail; no login. JSON `{verified, channel_id, address}`, or a short
   * page for a browser (`Accept: text/html`). Declared before `:id` so `verify` is not an id.
   */
  @Get('verify')
  @Public()
  async verify(
    @Query() query: VerifyAlertChannelQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.channels.verifyLink(query.token);
    if (accept?.includes('text/html')) {
      void reply.type('text/html; charset=utf-8');
      return verificationPage(result.address);
    }
    return result;
  }

  /** `201`; webhook channels carry `signing_secret` in this response only. `Idempotency-Key` supported. */
  @Post()
  @Scopes('*')
  create(
    @Auth() auth: AuthContext,
    @Body() body: CreateAlertChannelDto,
    @Credential() credential: string,
    @Headers('idempotency-key') idempotencyKey?: string,
  ) {
    return this.channels.create(auth, body, { idempotencyKey, credential });
  }

  @Get(':id')
  @Scopes('*')
  get(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string) {
    return this.channels.get(auth, id);
  }

  @Patch(':id')
  @Scopes('*')
  update(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string, @Body() body: UpdateAlertChannelDto) {
    return this.channels.update(auth, id, body);
  }

  /** `204`; rules that named the channel stop sending to it. */
  @Delete(':id')
  @HttpCode(204)
  @Scopes('*')
  async remove(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string): Promise<void> {
    await this.channels.remove(auth, id);
  }

  /** `200 {delivered, error}`: sends a test alert through the channel now. */
  @Post(':id/test')
  @HttpCode(200)
  @Scopes('*')
  test(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string) {
    return this.channels.test(auth, id);
  }

  /** `202`: mails a new confirmation link to an unverified email channel. */
  @Post(':id/verify')
  @HttpCode(202)
  @Scopes('*')
  resend(@Auth() auth: AuthContext, @Param('id', AlertChannelIdPipe) id: string) {
    return this.channels.resendVerification(auth, id);
  }
}
