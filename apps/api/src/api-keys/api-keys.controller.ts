import { Body, Controller, Param, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { ApiKeyIdPipe } from '../common/id-param.pipe';
import { ApiKeysService } from './api-keys.service';
import { CreateApiKeyDto, ListApiKeysQueryDto } from './dto/api-key.dto';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { API_KEY_PAGE_SCHEMA, CREATED_API_KEY_SCHEMA } from './api-key-response.schema';
import { DeleteRoute, GetRoute } from '../auth/route.decorators';

/** Keys need a full-access key (decisions.md → Scopes). */
@Controller('api/v1/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** Keys of the workspace, newest first, revoked ones included; prefix only, never the key. */
  @GetRoute('', '*', 'List the workspace’s API keys, newest first', API_KEY_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListApiKeysQueryDto) {
    return this.keys.list(auth, query);
  }

  /** `201` with the full `key`, shown this once. `Idempotency-Key` replays the same key to its caller. */
  @Post()
  @Scopes('*')
  @ApiOperation('Create an API key; the full key is in this response only', { 201: CREATED_API_KEY_SCHEMA })
  @Idempotent({ sealed: 'key' })
  create(@Auth() auth: AuthContext, @Body() body: CreateApiKeyDto) {
    return this.keys.create(auth, body);
  }

  /** `204`; the key stops working on the very next request. Revoking a revoked key is a no-op. */
  @DeleteRoute(':id', '*', 'Revoke an API key; it stops working on the next request')
  async revoke(@Auth() auth: AuthContext, @Param('id', ApiKeyIdPipe) id: string): Promise<void> {
    await this.keys.revoke(auth, id);
  }
}
