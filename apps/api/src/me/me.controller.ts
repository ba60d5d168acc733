import { Controller } from '@nestjs/common';
import { Auth, type AuthContext } from '../auth/auth.decorators';
import { MeService } from './me.service';
import { ME_SCHEMA } from '../auth/me-response.schema';
import { GetRoute } from '../auth/route.decorators';
import { ANY_KEY } from '../auth/scopes';

@Controller('api/v1/me')
export class MeController {
  constructor(private readonly me: MeService) {}

  /** The caller and its workspaces; any valid key may read it (decisions.md → Scopes). */
  @GetRoute('', ANY_KEY, 'The caller: its key and workspaces', ME_SCHEMA)
  get(@Auth() auth: AuthContext) {
    return this.me.me(auth);
  }
}
