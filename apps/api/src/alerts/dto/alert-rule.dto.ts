import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { ALERT_EVENT_TYPES, type AlertEventType } from '@svc/common/alert-events';
import { IsDuration, NonEmptyString, Rules } from '../../common/validators';
import { CURSORS } from '@svc/common';
import { idPattern } from '@svc/workflow-contract/ids';
import { JSONSchema } from 'class-validator-jsonschema';
import { PageQueryDto } from '../../common/page-query.dto';

/** Cooldown bounds: `0s` (every event alerts) to 7 days. */
export const MAX_COOLDOWN_MS = 7 * 86_400_000;
export const DEFAULT_COOLDOWN = '15m';
export const MAX_RULE_CHANNELS = 20;
export const MAX_RULE_JOBS = 100;
export const MAX_RULE_TAGS = 50;

/**
 * `POST /api/v1/alert-rules` (decisions.md → Alert rules): which events of which jobs go to
 * which channels, at most once per `cooldown` per job and event type.
 */
const ChannelIds = () =>
  Rules(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_RULE_CHANNELS),
    ArrayUnique(),
    IsString({ each: true }),
    Matches(idPattern('channel'), { each: true, message: 'each must be an alert channel id (ch_…)' }),
    JSONSchema({ 'x-server-check': 'alert channels of this workspace' }),
  );

const Events = () => Rules(IsArray(), ArrayMinSize(1), ArrayUnique(), IsIn(ALERT_EVENT_TYPES, { each: true }));

const JobIds = () =>
  Rules(
    IsOptional(),
    ValidateIf((_, value) => value !== null),
    IsArray(),
    ArrayMaxSize(MAX_RULE_JOBS),
    ArrayUnique(),
    IsString({ each: true }),
    Matches(idPattern('job'), { each: true, message: 'each must be a job id (job_…)' }),
    JSONSchema({ 'x-server-check': 'jobs of this workspace' }),
  );

const Tags = () =>
  Rules(
    IsOptional(),
    ValidateIf((_, value) => value !== null),
    IsArray(),
    ArrayMaxSize(MAX_RULE_TAGS),
    ArrayUnique(),
    IsString({ each: true }),
    MaxLength(100, { each: true }),
  );

const Cooldown = () => Rules(IsOptional(), IsDuration(0, MAX_COOLDOWN_MS));

export class CreateAlertRuleDto {
  @NonEmptyString(200)
  name: string;

  /** Default true. */
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** Channels of the workspace (`ch_…`), 1 to 20. */
  @ChannelIds()
  channel_ids: string[];

  /**
   * `run.failed`, `run.sla_breached`, `job.auto_disabled`, `job.recovered`, and the service's own
   * `service.degraded` / `service.recovered` (not narrowed by `job_ids` or `tags`).
   */
  @Events()
  events: AlertEventType[];

  /** Only these jobs (null or absent: every job). */
  @JobIds()
  job_ids?: string[] | null;

  /** Only jobs with at least one of these tags (null or absent: every job). */
  @Tags()
  tags?: string[] | null;

  /** At most one alert per job and event type in this window; default `15m`, `0s` for none. */
  @Cooldown()
  cooldown?: string;
}

/** `PATCH /api/v1/alert-rules/{id}`: any subset of the create fields. */
export class UpdateAlertRuleDto {
  @IsOptional()
  @NonEmptyString(200)
  name?: string;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @IsOptional()
  @ChannelIds()
  channel_ids?: string[];

  @IsOptional()
  @Events()
  events?: AlertEventType[];

  @JobIds()
  job_ids?: string[] | null;

  @Tags()
  tags?: string[] | null;

  /** `null` resets it to the default, `15m`. */
  @Cooldown()
  cooldown?: string | null;
}

export class ListAlertRulesQueryDto extends PageQueryDto(CURSORS.alertRules) {}
