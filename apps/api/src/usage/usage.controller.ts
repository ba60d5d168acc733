import { Controller, Get } from '@nestjs/common';
import { AnyKey, Auth, type AuthContext } from '../auth/auth.decorators';
import { UsageService } from './usage.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { USAGE_SCHEMA } from './usage-response.schema';

@Controller('api/v1/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  /** This UTC month's run count against the plan's limit; any valid key (decisions.md → Scopes). */
  @Get()
  @AnyKey()
  @ApiOperation('This UTC month’s run count against the plan’s limit', { 200: USAGE_SCHEMA })
  get(@Auth() auth: AuthContext) {
    return this.usage.get(auth);
  }
}
