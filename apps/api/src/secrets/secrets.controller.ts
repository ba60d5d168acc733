import { Body, Controller, Param, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { ListSecretsQueryDto, PutSecretDto } from './dto/secret.dto';
import { SecretNameToFindPipe, SecretNameToWritePipe } from './secret-name.pipe';
import { SecretsService } from './secrets.service';
import { ApiOperation, createdOrReplaced } from '../common/openapi/openapi.decorators';
import { SECRET_PAGE_SCHEMA, SECRET_SCHEMA } from './secret-response.schema';
import { DeleteRoute, GetRoute } from '../auth/route.decorators';

/** Workspace secrets for `{{secret.NAME}}` templates; full-access keys only (decisions.md → Scopes). */
@Controller('api/v1/secrets')
export class SecretsController {
  constructor(private readonly secrets: SecretsService) {}

  /** Names with `created_at` and `updated_at`, by name; never a value. */
  @GetRoute('', '*', 'List secret names; never a value', SECRET_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListSecretsQueryDto) {
    return this.secrets.list(auth, query);
  }

  /** `201` when created, `200` when replaced; body `{name, created_at, updated_at}`. */
  @Put(':name')
  @Scopes('*')
  @ApiOperation('Create (201) or replace (200) a secret', createdOrReplaced(SECRET_SCHEMA))
  async put(
    @Auth() auth: AuthContext,
    @Param('name', SecretNameToWritePipe) name: string,
    @Body() body: PutSecretDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { created, secret } = await this.secrets.put(auth, name, body);
    void reply.status(created ? 201 : 200);
    return secret;
  }

  /** `204`; `409 conflict` naming the jobs while any job's sink references it. */
  @DeleteRoute(':name', '*', 'Delete a secret (409 while a job references it)')
  async remove(@Auth() auth: AuthContext, @Param('name', SecretNameToFindPipe) name: string): Promise<void> {
    await this.secrets.remove(auth, name);
  }
}
