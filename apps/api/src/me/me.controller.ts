import { Controller, Get } from '@nestjs/common';
import { AnyKey, Auth, type AuthContext } from '../common/auth/auth.decorators';
import { MeService } from './me.service';

@Controller('api/v1/me')
export class MeController {
  constructor(private readonly me: MeService) {}

  /** The caller and its workspaces; any valid key may read it (decisions.md → Scopes). */
  @Get()
  @AnyKey()
  get(@Auth() auth: AuthContext) {
    return this.me.me(auth);
  }
}
