import { Injectable } from '@nestjs/common';
import { CURSORS, NotFoundError, type Page, readKeysetPage, parseDuration, ValidationFailedError } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import {
  AlertChannelsRepository,
  type AlertRuleValues,
  AlertRulesRepository,
  AuditRepository,
  Transactions,
  type Tx,
} from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { type AlertRuleResponse, toAlertRuleResponse } from './alerts.mapper';
import { CreateAlertRuleDto, DEFAULT_COOLDOWN, ListAlertRulesQueryDto, UpdateAlertRuleDto } from './dto/alert-rule.dto';

const CREATE_SCOPE = 'POST /api/v1/alert-rules';

/**
 * Alert rules (docs/alerts.md; decisions.md → Alert rules): which events of which jobs go to
 * which channels, with a cooldown per job and event type. Channels and jobs a rule names must
 * exist in the workspace; every change is audited.
 */
@Injectable()
export class AlertRulesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly rules: AlertRulesRepository,
    private readonly channels: AlertChannelsRepository,
    private readonly audit: AuditRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  list(auth: AuthContext, query: ListAlertRulesQueryDto): Promise<Page<AlertRuleResponse>> {
    return readKeysetPage(query, {
      format: CURSORS.alertRules,
      fetch: (after, limit) => this.rules.listPage(auth.workspaceId, { beforeId: after?.id, limit }),
      keyOf: ({ id }) => ({ id }),
      toItem: toAlertRuleResponse,
    });
  }

  async get(auth: AuthContext, id: string): Promise<AlertRuleResponse> {
    const rule = await this.rules.findById(auth.workspaceId, id);
    if (!rule) {
      throw new NotFoundError('Alert rule');
    }
    return toAlertRuleResponse(rule);
  }

  create(auth: AuthContext, dto: CreateAlertRuleDto, idempotencyKey?: string): Promise<AlertRuleResponse> {
    return this.idempotency.execute(auth, CREATE_SCOPE, idempotencyKey, dto, () => this.insert(auth, dto));
  }

  private async insert(auth: AuthContext, dto: CreateAlertRuleDto): Promise<AlertRuleResponse> {
    const values: AlertRuleValues = {
      name: dto.name,
      enabled: dto.enabled ?? true,
      channelIds: dto.channel_ids,
      events: dto.events,
      jobIds: dto.job_ids ?? null,
      tags: dto.tags ?? null,
      cooldownMs: parseDuration(dto.cooldown ?? DEFAULT_COOLDOWN)!,
    };
    const rule = await this.transactions.run(async (manager) => {
      await this.checkReferences(auth.workspaceId, values, manager);
      const created = await this.rules.insert(auth.workspaceId, newId('rule'), values, manager);
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'alert_rule.create', target: created.id, details: auditDetails(values) },
        manager,
      );
      return created;
    });
    return toAlertRuleResponse(rule);
  }

  async update(auth: AuthContext, id: string, dto: UpdateAlertRuleDto): Promise<AlertRuleResponse> {
    const rule = await this.transactions.run(async (manager) => {
      const current = await this.rules.getForUpdate(auth.workspaceId, id, manager);
      if (!current) {
        throw new NotFoundError('Alert rule');
      }
      const values: AlertRuleValues = {
        name: dto.name ?? current.name,
        enabled: dto.enabled ?? current.enabled,
        channelIds: dto.channel_ids ?? current.channelIds,
        events: dto.events ?? current.events,
        jobIds: dto.job_ids === undefined ? current.jobIds : dto.job_ids,
        tags: dto.tags === undefined ? current.tags : dto.tags,
        // null resets to the default, as on create (a PATCH's null means the field's default).
        cooldownMs: dto.cooldown === undefined ? current.cooldownMs : parseDuration(dto.cooldown ?? DEFAULT_COOLDOWN)!,
      };
      await this.checkReferences(auth.workspaceId, values, manager, dto);
      const changed = Object.keys(dto).filter((key) => (dto as Record<string, unknown>)[key] !== undefined);
      const updated = await this.rules.update(auth.workspaceId, id, values, manager);
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'alert_rule.update', target: id, details: { changed, ...auditDetails(values) } },
        manager,
      );
      return updated!;
    });
    return toAlertRuleResponse(rule);
  }

  async remove(auth: AuthContext, id: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const current = await this.rules.getForUpdate(auth.workspaceId, id, manager);
      if (!current) {
        throw new NotFoundError('Alert rule');
      }
      await this.rules.delete(auth.workspaceId, id, manager);
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'alert_rule.delete', target: id, details: { name: current.name } },
        manager,
      );
    });
  }

  /**
   * `400 validation_failed` naming each channel or job the rule names that is not in the workspace.
   * The channels are locked (`FOR KEY SHARE`) so a concurrent channel delete removes the id from
   * this rule too. On PATCH only the lists sent are checked (a job deleted since stays harmless).
   */
  private async checkReferences(
    workspaceId: string,
    values: AlertRuleValues,
    manager: Tx,
    sent: { channel_ids?: unknown; job_ids?: unknown } = { channel_ids: true, job_ids: true },
  ): Promise<void> {
    const fields: Record<string, string> = {};
    if (sent.channel_ids !== undefined) {
      const found = new Set(await this.channels.lockExisting(workspaceId, values.channelIds, manager));
      const missing = values.channelIds.filter((id) => !found.has(id));
      if (missing.length > 0) {
        fields.channel_ids = `unknown alert channel${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
      }
    }
    if (sent.job_ids !== undefined && values.jobIds) {
      const found = new Set(await this.rules.existingJobIds(workspaceId, values.jobIds, manager));
      const missing = values.jobIds.filter((id) => !found.has(id));
      if (missing.length > 0) {
        fields.job_ids = `unknown job${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
      }
    }
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
  }
}

function auditDetails(values: AlertRuleValues) {
  return { name: values.name, enabled: values.enabled, events: values.events, channel_ids: values.channelIds };
}
