import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../common/auth/auth.decorators';
import { AlertRuleIdPipe } from './alert-id.pipes';
import { AlertRulesService } from './alert-rules.service';
import { CreateAlertRuleDto, ListAlertRulesQueryDto, UpdateAlertRuleDto } from './dto/alert-rule.dto';

/** Alert rules need a full-access key (decisions.md → Scopes). */
@Controller('api/v1/alert-rules')
export class AlertRulesController {
  constructor(private readonly rules: AlertRulesService) {}

  @Get()
  @Scopes('*')
  list(@Auth() auth: AuthContext, @Query() query: ListAlertRulesQueryDto) {
    return this.rules.list(auth, query);
  }

  /** `201`; `Idempotency-Key` supported. */
  @Post()
  @Scopes('*')
  create(
    @Auth() auth: AuthContext,
    @Body() body: CreateAlertRuleDto,
    @Headers('idempotency-key') idempotencyKey?: string,
  ) {
    return this.rules.create(auth, body, idempotencyKey);
  }

  @Get(':id')
  @Scopes('*')
  get(@Auth() auth: AuthContext, @Param('id', AlertRuleIdPipe) id: string) {
    return this.rules.get(auth, id);
  }

  @Patch(':id')
  @Scopes('*')
  update(@Auth() auth: AuthContext, @Param('id', AlertRuleIdPipe) id: string, @Body() body: UpdateAlertRuleDto) {
    return this.rules.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Scopes('*')
  async remove(@Auth() auth: AuthContext, @Param('id', AlertRuleIdPipe) id: string): Promise<void> {
    await this.rules.remove(auth, id);
  }
}
