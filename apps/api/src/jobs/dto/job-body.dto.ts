import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsDuration, IsPlainObject, MaxBytes, OptionalTimestamp } from '../../common/validators';
import { BracketIndexes, CollectsStageErrors } from '../../common/validation';
import { CURSORS } from '@svc/common';
import { BACKOFF_KINDS } from '@svc/workflow-contract/backoff';
import { MISFIRE_POLICIES, OVERLAP_POLICIES } from '@svc/workflow-contract/definitions';
import {
  CALENDAR_NAME_MAX_LENGTH,
  CALENDAR_NAME_PATTERN,
  REQUESTED_SCHEDULE_KINDS,
  type RequestedScheduleKind,
} from '@svc/schedule';
import { PageQueryDto } from '../../common/page-query.dto';

/**
 * `sink.kind`: any registered kind (docs/extending.md); the sink validator names the unknown ones
 * and the OpenAPI document lists the registered ones (openapi/sink-kinds.ts).
 */
export const SINK_KIND_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const SCHEDULE_CHECK =
  'a schedule that parses (natural language, Quartz, cron or RRULE: `POST /api/v1/schedules/validate` says why not)';
const SINK_CONFIG_CHECK =
  'the configuration of `kind`: webhook `{url, method?, headers?, body?, success_codes?, retry_on?, follow_redirects?}` ' +
  '(a URL the network rules allow, headers not reserved, `{{secret.NAME}}` templates naming existing secrets), ' +
  'command `{argv, env?, cwd?, retry_on_exit_codes?}`';

/** `whsec_` + base64 of 24..64 bytes: at least a 192-bit HMAC key, like the ones we generate (32 bytes). */
export const SIGNING_SECRET_PATTERN = /^whsec_(?:[A-Za-z0-9+/]{4}){8,22}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A job's `key`: 1–128 characters, unique per workspace. */
export const JOB_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const JOB_KEY_MAX_LENGTH = 128;
/** `managed_by`: who declares a set of jobs (`git:infra/jobs.yaml`, `app:billing`). */
export const MANAGED_BY_MAX_LENGTH = 200;
/** The most jobs one apply may declare (one request body). */
export const APPLY_MAX_JOBS = 5000;

/** The policy lists are defined once, with the types the workflow and the jobs table use. */
export const BACKOFFS = BACKOFF_KINDS;
export { MISFIRE_POLICIES, OVERLAP_POLICIES };
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export class ScheduleDto {
  /** The expression: natural language, Quartz, cron or RRULE; at most 4096 bytes. */
  @IsString()
  @IsNotEmpty()
  @MaxBytes(4096)
  @JSONSchema({ 'x-server-check': SCHEDULE_CHECK })
  expr: string;

  @IsOptional()
  @IsIn(REQUESTED_SCHEDULE_KINDS)
  kind?: RequestedScheduleKind;

  /** IANA time zone; default UTC. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @JSONSchema({ 'x-server-check': 'an IANA time zone' })
  timezone?: string;

  @OptionalTimestamp()
  starts_at?: string | null;

  @OptionalTimestamp()
  @JSONSchema({ 'x-server-check': 'after `starts_at`' })
  ends_at?: string | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  count?: number | null;

  /**
   * Workspace calendars whose days have no occurrence, in the schedule's zone: names of
   * `/api/v1/calendars`, at most 20. Default none.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(CALENDAR_NAME_PATTERN, { each: true, message: 'each must be a calendar name such as holidays:de-berlin' })
  @MaxLength(CALENDAR_NAME_MAX_LENGTH, { each: true })
  @JSONSchema({ 'x-server-check': 'names of existing calendars (`/api/v1/calendars`)' })
  exclude_calendars?: string[] | null;
}

/**
 * PATCH may send part of the schedule; what is missing keeps its stored value, `null` resets
 * `kind` (auto), `timezone` (UTC), `starts_at`, `ends_at` and `count` (none). `expr` has no
 * default: `null` is refused.
 */
export class SchedulePatchDto extends ScheduleDto {
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxBytes(4096)
  @JSONSchema({ 'x-server-check': SCHEDULE_CHECK })
  declare expr: string;
}

export class SinkDto {
  @IsString()
  @Matches(SINK_KIND_PATTERN)
  kind: string;

  /** Kind-specific configuration; validated by the sink's own rules. */
  @IsPlainObject()
  @JSONSchema({ 'x-server-check': SINK_CONFIG_CHECK })
  config: Record<string, unknown>;
}

/**
 * PATCH's sink: `config` alone merges field by field into the stored config (`null` removes a
 * field: the sink's default applies); a new `kind` needs its complete `config` (job-patch.ts).
 */
@JSONSchema({
  description:
    '`config` alone merges field by field into the stored configuration (`null` removes a field: the sink default ' +
    'applies). A `kind` other than the stored one needs `config`: the complete configuration of the new kind.',
})
export class SinkPatchDto {
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @Matches(SINK_KIND_PATTERN)
  kind?: string;

  /** Fields of the kind's configuration; with a new `kind`, the complete configuration. */
  @ValidateIf((_, value) => value !== undefined)
  @IsPlainObject()
  @JSONSchema({ 'x-server-check': SINK_CONFIG_CHECK })
  config?: Record<string, unknown>;
}

export class RetryDto {
  /** Counts the first attempt; 1..20. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  max_attempts?: number;

  @IsOptional()
  @IsIn(BACKOFFS)
  backoff?: (typeof BACKOFFS)[number];

  @IsOptional()
  @IsDuration(100, 24 * 3_600_000)
  @JSONSchema({ 'x-server-check': 'from 100ms to 1d, and at most `max_interval`' })
  initial_interval?: string;

  @IsOptional()
  @IsDuration(100, 24 * 3_600_000)
  max_interval?: string;

  @IsOptional()
  @IsNumber()
  @Min(1)
  @Max(10)
  multiplier?: number;

  /** Fraction of the delay applied both ways; 0..1. */
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  jitter?: number;
}

export class WebhookConfigDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url: string;

  @IsOptional()
  @IsIn(HTTP_METHODS)
  method?: (typeof HTTP_METHODS)[number];

  @IsOptional()
  @IsPlainObject()
  headers?: Record<string, string>;

  @IsOptional()
  @IsString()
  @MaxBytes(256 * 1024)
  body?: string;

  /** `2xx` or a list of status codes. */
  @IsOptional()
  success_codes?: '2xx' | number[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  retry_on?: Array<string | number>;

  @IsOptional()
  @IsBoolean()
  follow_redirects?: boolean;
}

export class CommandConfigDto {
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  argv: string[];

  @IsOptional()
  @IsPlainObject()
  env?: Record<string, string>;

  @IsOptional()
  @IsString()
  cwd?: string;

  @IsOptional()
  @IsArray()
  @IsInt({ each: true })
  retry_on_exit_codes?: number[];
}

/** Fields shared by create and update (update makes every one optional). */
export class JobFieldsDto {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];

  @IsOptional()
  @ValidateNested()
  @Type(() => RetryDto)
  retry?: RetryDto;

  /** Per attempt, 1s..120s; default 30s. */
  @IsOptional()
  @IsDuration(1_000, 120_000)
  timeout?: string;

  /** null = the server default. */
  @IsOptional()
  @IsDuration(1_000, 7 * 24 * 3_600_000)
  sla_threshold?: string | null;

  @IsOptional()
  @IsIn(MISFIRE_POLICIES)
  misfire_policy?: (typeof MISFIRE_POLICIES)[number];

  @IsOptional()
  @IsIn(OVERLAP_POLICIES)
  overlap_policy?: (typeof OVERLAP_POLICIES)[number];

  /** Consecutive failed runs before the job is disabled; 0 never; null = the server default. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  auto_disable_threshold?: number | null;

  /**
   * Spread window, 1s..24h: each occurrence fires at the job's fixed offset inside it
   * (`start_offset_ms`); null = none.
   */
  @IsOptional()
  @IsDuration(1_000, 24 * 3_600_000)
  @JSONSchema({
    description:
      'Each occurrence fires at a fixed offset inside this window after its nominal time (the job’s ' +
      '`start_offset_ms`, derived from its id). null: at the nominal time.',
    'x-server-check': 'at most the schedule’s shortest interval between occurrences',
  })
  start_window?: string | null;

  /** Runs in flight at most; null = 1 under skip/queue/cancel_previous, unbounded under allow. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  @JSONSchema({
    description:
      'Runs in flight at most under `overlap_policy: allow`; an occurrence beyond it is recorded skipped ' +
      '(`skip_reason: max_concurrent_runs`). null: unbounded under `allow`, 1 under the other policies.',
    'x-server-check': 'only 1 unless overlap_policy is allow',
  })
  max_concurrent_runs?: number | null;
}

/** What every job declaration has: `POST /jobs`, `PUT /jobs/by-key/{key}` and a job of an apply. */
export class JobBodyDto extends JobFieldsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @IsDefined()
  @ValidateNested()
  @Type(() => ScheduleDto)
  schedule: ScheduleDto;

  @IsDefined()
  @ValidateNested()
  @Type(() => SinkDto)
  sink: SinkDto;

  /**
   * Webhook jobs only, write-only: the job signs with this secret instead of a generated one, so a
   * caller that declares its jobs from several replicas (the NestJS module, docs/nestjs.md) can
   * verify every delivery with a secret it already holds. Never echoed back.
   */
  @IsOptional()
  @IsString()
  @Matches(SIGNING_SECRET_PATTERN, { message: 'signing_secret must be whsec_ + base64 of 24 to 64 bytes' })
  @JSONSchema({ writeOnly: true, 'x-server-check': 'webhook jobs only (`sink.kind` `webhook`)' })
  signing_secret?: string;
}

/** The example is the OpenAPI document's (docs/api.md): clients see it, the fuzzer starts from it. */
@JSONSchema({
  examples: [
    {
      name: 'nightly report',
      description: 'Builds the report every weekday morning',
      tags: ['reports'],
      schedule: { expr: 'every weekday at 9am', timezone: 'Europe/Berlin' },
      sink: { kind: 'webhook', config: { url: 'https://hooks.example.com/nightly-report' } },
      retry: { max_attempts: 5, backoff: 'exponential' },
      timeout: '30s',
    },
  ],
})
@CollectsStageErrors()
export class CreateJobDto extends JobBodyDto {
  /** The job's stable name in the workspace: `PUT /jobs/by-key/{key}`, apply. Never changes. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(JOB_KEY_MAX_LENGTH)
  @Matches(JOB_KEY_PATTERN)
  @JSONSchema({ 'x-server-check': 'not taken by another job of the workspace (`409 conflict`)' })
  key?: string;
}

/** One job of an apply: the body of `POST /jobs` with its `key`, which is required. */
@JSONSchema({
  description:
    'A job of the set: the body of `POST /jobs` with a required `key`. A full declaration: a field left out takes ' +
    'its default (not the stored value).',
})
export class DeclaredJobDto extends JobBodyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(JOB_KEY_MAX_LENGTH)
  @Matches(JOB_KEY_PATTERN)
  key: string;
}

/** `POST /jobs/apply` (docs/api.md → Apply). */
@JSONSchema({
  examples: [
    {
      managed_by: 'git:infra/jobs.yaml',
      prune: true,
      dry_run: true,
      jobs: [
        {
          key: 'reports.nightly',
          name: 'nightly report',
          schedule: { expr: 'every weekday at 9am', timezone: 'Europe/Berlin' },
          sink: { kind: 'webhook', config: { url: 'https://hooks.example.com/nightly-report' } },
        },
      ],
    },
  ],
})
@CollectsStageErrors()
export class ApplyJobsDto {
  /** Who declares the set; its jobs carry it, `prune` deletes only jobs it owns. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MANAGED_BY_MAX_LENGTH)
  managed_by?: string;

  @IsArray()
  @ArrayMaxSize(APPLY_MAX_JOBS)
  @ValidateNested({ each: true })
  @Type(() => DeclaredJobDto)
  @BracketIndexes()
  @JSONSchema({ 'x-server-check': 'keys unique within the set; each job validated like a create' })
  jobs: DeclaredJobDto[];

  /** Delete the jobs `managed_by` owns that the set no longer names; needs `managed_by`. */
  @IsOptional()
  @IsBoolean()
  @JSONSchema({ 'x-server-check': '`true` needs `managed_by`' })
  prune?: boolean;

  /** Answer the plan and write nothing. */
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;

  /** Take over jobs of the set created by hand or owned by another `managed_by` (else `409 conflict`). */
  @IsOptional()
  @IsBoolean()
  adopt?: boolean;
}

/**
 * Any subset of the create fields (job-patch.ts has the merge rule; docs/api.md → PATCH). What is
 * omitted is kept; `null` resets a field that has a default.
 */
@JSONSchema({
  description:
    'Any subset of the create fields. Omitted fields keep their stored value; `schedule`, `retry` and `sink.config` ' +
    'merge field by field with the stored ones (maps and lists inside them are replaced whole); `null` resets a ' +
    'field to its default (`description`, `tags`, `retry` and each of its fields, `timeout`, `sla_threshold`, ' +
    '`misfire_policy`, `overlap_policy`, `auto_disable_threshold`, `start_window`, `max_concurrent_runs`, ' +
    '`schedule.kind|timezone|starts_at|ends_at|count`, ' +
    'and any `sink.config` field, which then takes the sink default); `name`, `schedule`, `schedule.expr` and `sink` ' +
    'refuse `null`. A new `schedule.expr` without `schedule.kind` is detected again (`auto`). A new `sink.kind` needs ' +
    'the complete `sink.config` of that kind. The merged job is validated like a create: `400 validation_failed` ' +
    'names the fields and nothing is written.',
  examples: [
    { description: 'Moved to the afternoon', schedule: { expr: 'every weekday at 2pm' } },
    { sink: { config: { retry_on: ['5xx', 'timeout'] } }, retry: { max_attempts: 5 } },
  ],
})
@CollectsStageErrors()
export class UpdateJobDto extends JobFieldsDto {
  // name, schedule and sink have no server default: omit them to keep them; null is refused (400).
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ValidateIf((_, value) => value !== undefined)
  @ValidateNested()
  @Type(() => SchedulePatchDto)
  schedule?: SchedulePatchDto;

  @ValidateIf((_, value) => value !== undefined)
  @ValidateNested()
  @Type(() => SinkPatchDto)
  sink?: SinkPatchDto;
}

export class ListJobsQueryDto extends PageQueryDto(CURSORS.jobs) {
  @IsOptional()
  @IsIn(['active', 'paused', 'disabled', 'completed'])
  state?: 'active' | 'paused' | 'disabled' | 'completed';

  @IsOptional()
  @IsString()
  @MaxLength(64)
  tag?: string;

  /** Case-insensitive substring of the name, the description or the key. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  /** Exact key. */
  @IsOptional()
  @IsString()
  @MaxLength(JOB_KEY_MAX_LENGTH)
  key?: string;

  /** Exact owner: the jobs an apply with this `managed_by` declared. */
  @IsOptional()
  @IsString()
  @MaxLength(MANAGED_BY_MAX_LENGTH)
  managed_by?: string;
}
