import { Body, Controller, Param, Patch } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { WorkspaceIdPipe } from '../common/id-param.pipe';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { WorkspacesService } from './workspaces.service';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { WORKSPACE_SCHEMA } from './workspace-response.schema';
import { GetRoute } from '../auth/route.decorators';
import { ANY_KEY } from '../auth/scopes';

@Controller('api/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  /** Any valid key may read its own workspace (decisions.md → Scopes); other ids are 404. */
  @GetRoute(':ws', ANY_KEY, 'The caller’s workspace (any other id is 404)', WORKSPACE_SCHEMA)
  get(@Auth() auth: AuthContext, @Param('ws', WorkspaceIdPipe) id: string) {
    return this.workspaces.get(auth, id);
  }

  /** `name` and/or `slug`; needs a full-access key. Answers the updated workspace. */
  @Patch(':ws')
  @Scopes('*')
  @ApiOperation('Rename the workspace or change its slug', { 200: WORKSPACE_SCHEMA })
  update(@Auth() auth: AuthContext, @Param('ws', WorkspaceIdPipe) id: string, @Body() body: UpdateWorkspaceDto) {
    return this.workspaces.update(auth, id, body);
  }
}
