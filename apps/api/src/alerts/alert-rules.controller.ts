import { Body, Controller, Param, Patch, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { AlertRuleIdPipe } from './alert-id.pipes';
import { AlertRulesService } from './alert-rules.service';
import { CreateAlertRuleDto, ListAlertRulesQueryDto, UpdateAlertRuleDto } from './dto/alert-rule.dto';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { ALERT_RULE_PAGE_SCHEMA, ALERT_RULE_SCHEMA } from './alert-response.schema';
import { DeleteRoute, GetRoute } from '../auth/route.decorators';

/** Alert rules need a full-access key (decisions.md → Scopes). */
@Controller('api/v1/alert-rules')
export class AlertRulesController {
  constructor(private readonly rules: AlertRulesService) {}

  @GetRoute('', '*', 'List alert rules, newest first', ALERT_RULE_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListAlertRulesQueryDto) {
    return this.rules.list(auth, query);
  }

  /** `201`; `Idempotency-Key` supported. */
  @Post()
  @Scopes('*')
  @ApiOperation('Create an alert rule', { 201: ALERT_RULE_SCHEMA })
  @Idempotent()
  create(@Auth() auth: AuthContext, @Body() body: CreateAlertRuleDto) {
    return this.rules.create(auth, body);
  }

  @GetRoute(':id', '*', 'Get an alert rule', ALERT_RULE_SCHEMA)
  get(@Auth() auth: AuthContext, @Param('id', AlertRuleIdPipe) id: string) {
    return this.rules.get(auth, id);
  }

  @Patch(':id')
  @Scopes('*')
  @ApiOperation('Change an alert rule', { 200: ALERT_RULE_SCHEMA })
  update(@Auth() auth: AuthContext, @Param('id', AlertRuleIdPipe) id: string, @Body() body: UpdateAlertRuleDto) {
    return this.rules.update(auth, id, body);
  }

  @DeleteRoute(':id', '*', 'Delete an alert rule')
  async remove(@Auth() auth: AuthContext, @Param('id', AlertRuleIdPipe) id: string): Promise<void> {
    await this.rules.remove(auth, id);
  }
}
