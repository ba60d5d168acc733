import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { AnyKey, Auth, type AuthContext, Scopes } from '../common/auth/auth.decorators';
import { WorkspaceIdPipe } from '../common/id-param.pipe';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { WorkspacesService } from './workspaces.service';

@Controller('api/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  /** Any valid key may read its own workspace (decisions.md → Scopes); other ids are 404. */
  @Get(':ws')
  @AnyKey()
  get(@Auth() auth: AuthContext, @Param('ws', WorkspaceIdPipe) id: string) {
    return this.workspaces.get(auth, id);
  }

  /** `name` and/or `slug`; needs a full-access key. Answers the updated workspace. */
  @Patch(':ws')
  @Scopes('*')
  update(@Auth() auth: AuthContext, @Param('ws', WorkspaceIdPipe) id: string, @Body() body: UpdateWorkspaceDto) {
    return this.workspaces.update(auth, id, body);
  }
}
