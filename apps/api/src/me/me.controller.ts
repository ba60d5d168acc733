import { Controller, Get } from '@nestjs/common';
import { AnyKey, Auth, type AuthContext } from '../auth/auth.decorators';
import { MeService } from './me.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { ME_SCHEMA } from '../auth/me-response.schema';

@Controller('api/v1/me')
export class MeController {
  constructor(private readonly me: MeService) {}

  /** The caller and its workspaces; any valid key may read it (decisions.md → Scopes). */
  @Get()
  @AnyKey()
  @ApiOperation('The caller: its key and workspaces', { 200: ME_SCHEMA })
  get(@Auth() auth: AuthContext) {
    return this.me.me(auth);
  }
}
