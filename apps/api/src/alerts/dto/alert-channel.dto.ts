import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { ALERT_CHANNEL_KINDS, type AlertChannelKind } from '@svc/delivery';
import { IsPlainObject, NonEmptyString } from '../../common/validators';
import { CURSORS } from '@svc/common';
import { JSONSchema } from 'class-validator-jsonschema';
import { PageQueryDto } from '../../common/page-query.dto';

const CHANNEL_CONFIG_CHECK =
  'the configuration of the kind: email `{address}`, webhook `{url}` (allowed by the network rules), slack `{webhook_url}`';

/**
 * `POST /api/v1/alert-channels` (decisions.md → Alert channels): `email` `{address}`, `webhook`
 * `{url}` (signed with the channel's own `whsec_` secret, returned once), `slack` `{webhook_url}`.
 * `config` is checked per kind by `checkChannelConfig`.
 */
export class CreateAlertChannelDto {
  /** A label for people (shown in alerts' confirmation mail and lists). */
  @NonEmptyString(200)
  name: string;

  @IsIn(ALERT_CHANNEL_KINDS)
  kind: AlertChannelKind;

  @IsPlainObject()
  @JSONSchema({ 'x-server-check': CHANNEL_CONFIG_CHECK })
  config: Record<string, unknown>;
}

/** `PATCH /api/v1/alert-channels/{id}`: name and/or config; the kind stays. A new email address is unverified again. */
export class UpdateAlertChannelDto {
  @IsOptional()
  @NonEmptyString(200)
  name?: string;

  @IsOptional()
  @IsPlainObject()
  @JSONSchema({ 'x-server-check': CHANNEL_CONFIG_CHECK })
  config?: Record<string, unknown>;
}

export class ListAlertChannelsQueryDto extends PageQueryDto(CURSORS.alertChannels) {}

/** `GET /api/v1/alert-channels/verify?token=…` (no login: the link of a confirmation mail). */
export class VerifyAlertChannelQueryDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  @JSONSchema({ 'x-server-check': 'a confirmation link this server signed, not expired' })
  token: string;
}
