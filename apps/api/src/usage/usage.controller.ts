import { Controller } from '@nestjs/common';
import { Auth, type AuthContext } from '../auth/auth.decorators';
import { UsageService } from './usage.service';
import { USAGE_SCHEMA } from './usage-response.schema';
import { GetRoute } from '../auth/route.decorators';
import { ANY_KEY } from '../auth/scopes';

@Controller('api/v1/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  /** This UTC month's run count against the plan's limit; any valid key (decisions.md → Scopes). */
  @GetRoute('', ANY_KEY, 'This UTC month’s run count against the plan’s limit', USAGE_SCHEMA)
  get(@Auth() auth: AuthContext) {
    return this.usage.get(auth);
  }
}
