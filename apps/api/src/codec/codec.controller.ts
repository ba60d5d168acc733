import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ReadOnly, Scopes } from '../auth/auth.decorators';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { CODEC_PAYLOADS_SCHEMA } from './codec-payloads.schema';
import { CodecService } from './codec.service';
import { CodecPayloadsDto } from './dto/codec-payloads.dto';

const PROTOCOL =
  'Temporal’s codec-server protocol (point the Temporal Web UI’s codec endpoint, or `temporal --codec-endpoint`, ' +
  'at `<public_url>/codec`). Browsers are allowed only from `temporal.codec.cors_origins` (default: the origin of ' +
  '`temporal.ui_url`); a dashboard session needs no `X-CSRF-Token` here. docs/operations.md → Payload encryption.';

/**
 * The codec server: lets people allowed to read the workspace's jobs (`jobs:read`) see
 * decoded payloads in the Temporal Web UI. CORS: codec-cors.hook.ts.
 */
@Controller('codec')
export class CodecController {
  constructor(private readonly codec: CodecService) {}

  @Post('encode')
  @HttpCode(200)
  @Scopes('jobs:read')
  @ReadOnly()
  @ApiOperation(
    'Encode (encrypt) Temporal payloads with the current codec key',
    { 200: CODEC_PAYLOADS_SCHEMA },
    `${PROTOCOL} With the codec off, payloads come back unchanged.`,
  )
  encode(@Body() body: CodecPayloadsDto) {
    return this.codec.encode(body.payloads);
  }

  @Post('decode')
  @HttpCode(200)
  @Scopes('jobs:read')
  @ReadOnly()
  @ApiOperation(
    'Decode (decrypt) Temporal payloads',
    { 200: CODEC_PAYLOADS_SCHEMA },
    `${PROTOCOL} Payloads that are not encrypted come back unchanged; one encrypted under a key id this server ` +
      'does not have (or tampered with) is `400 validation_failed`, naming it in `error.fields`.',
  )
  decode(@Body() body: CodecPayloadsDto) {
    return this.codec.decode(body.payloads);
  }
}
