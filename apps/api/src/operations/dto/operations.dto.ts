import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { NonEmptyString, OptionalTimestamp, Rules } from '../../common/validators';
import { JOB_KEY_MAX_LENGTH, MANAGED_BY_MAX_LENGTH } from '../../jobs/dto/job-body.dto';

/** The most jobs or runs one operation may match (a narrower filter, or several operations, beyond). */
export const OPERATION_MAX_ITEMS = 10_000;
/** A recover's default `max`. */
export const RECOVER_DEFAULT_MAX = 1_000;
export const OPERATION_NOTE_MAX_LENGTH = 1_000;
export const BULK_ACTIONS = ['pause', 'resume', 'trigger', 'delete', 'enable'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
const JOB_STATES = ['active', 'paused', 'disabled', 'completed'] as const;
/** `sink_host`: a host name, optionally with a port (`hooks.example.com`, `hooks.example.com:8443`). */
const SINK_HOST_MAX_LENGTH = 260;
const FILTER_IDS_MAX = OPERATION_MAX_ITEMS;

/** A filter's optional list of ids or tags: not empty, at most `max` of at most 64 characters. */
const NameList = (max: number) =>
  Rules(
    IsOptional(),
    IsArray(),
    ArrayNotEmpty(),
    ArrayMaxSize(max),
    IsString({ each: true }),
    MaxLength(64, { each: true }),
  );

/** A filter's optional text (a key prefix, an owner, a host): not empty, at most `max` characters. */
const FilterText = (max: number) => Rules(IsOptional(), NonEmptyString(max));

/** Why, as the caller wrote it (every audit entry the operation writes carries it). */
const Note = () => Rules(IsOptional(), IsString(), MaxLength(OPERATION_NOTE_MAX_LENGTH));

/** Which jobs a bulk action is about: every field given must hold (AND). */
export class BulkJobFilterDto {
  /** These jobs (ids of other workspaces or of no job match nothing). */
  @NameList(FILTER_IDS_MAX)
  ids?: string[];

  /** Jobs carrying every one of these tags. */
  @NameList(20)
  tags?: string[];

  /** Jobs whose `key` starts with this. */
  @FilterText(JOB_KEY_MAX_LENGTH)
  key_prefix?: string;

  /** Jobs an apply with this `managed_by` declared. */
  @FilterText(MANAGED_BY_MAX_LENGTH)
  managed_by?: string;

  /** Webhook jobs whose URL's host is this (`hooks.example.com`), or host and port (`hooks.example.com:8443`). */
  @FilterText(SINK_HOST_MAX_LENGTH)
  sink_host?: string;

  /** Jobs in this state; it must be one the action applies to (`pause`: `active`, …). */
  @IsOptional()
  @IsIn(JOB_STATES)
  @JSONSchema({ 'x-server-check': 'a state the action applies to (`pause`: `active`, …)' })
  state?: (typeof JOB_STATES)[number];
}

@JSONSchema({
  description:
    'A bulk action on the jobs `filter` matches (every field given must hold). `dry_run` answers the matched jobs ' +
    'and changes nothing; otherwise the answer is `202` with the operation (`GET /operations/{id}`), which applies ' +
    'the action to each job as the single-job endpoint does, with `note` in each audit entry.',
  examples: [
    {
      action: 'pause',
      filter: { tags: ['billing'], sink_host: 'hooks.example.com' },
      note: 'hooks.example.com maintenance, CHG-1234',
      resume_at: '2026-12-01T06:00:00Z',
    },
    { action: 'resume', filter: { tags: ['billing'], state: 'paused' }, dry_run: true },
  ],
})
export class BulkJobsDto {
  @IsIn(BULK_ACTIONS)
  action: BulkAction;

  @IsDefined()
  @ValidateNested()
  @Type(() => BulkJobFilterDto)
  @JSONSchema({ 'x-server-check': 'not empty unless `all: true`; `state` one the action applies to' })
  filter: BulkJobFilterDto;

  /** Every job of the workspace: needed when `filter` is empty, refused beside a non-empty one. */
  @IsOptional()
  @IsBoolean()
  @JSONSchema({ 'x-server-check': 'refused beside a non-empty `filter`' })
  all?: boolean;

  /** Why; written into each job's audit entry and, for a pause, shown on the paused job (`paused_note`). */
  @Note()
  note?: string;

  /** pause only: the end of the maintenance window, when the jobs paused by this action are resumed. */
  @OptionalTimestamp()
  @JSONSchema({ 'x-server-check': 'in the future, at most 366 days ahead; only with `action: pause`' })
  resume_at?: string;

  /** Answer the matched jobs and change nothing. */
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

/** Which failed runs a recover retries: every field given must hold (AND). */
export class RecoverRunFilterDto {
  /** Runs of these jobs. */
  @NameList(1000)
  job_ids?: string[];

  /** Runs of jobs carrying every one of these tags. */
  @NameList(20)
  tags?: string[];

  /** Runs of webhook jobs whose URL's host is this (or host and port). */
  @FilterText(SINK_HOST_MAX_LENGTH)
  sink_host?: string;

  /** Only `failed` runs can be retried (decisions.md → Manual retry); the default. */
  @IsOptional()
  @IsIn(['failed'])
  status?: 'failed';

  /** Inclusive lower bound on `scheduled_at`. */
  @OptionalTimestamp()
  from?: string;

  /** Exclusive upper bound on `scheduled_at`. */
  @OptionalTimestamp()
  @JSONSchema({ 'x-server-check': 'after `from`' })
  to?: string;
}

@JSONSchema({
  description:
    'Retries every failed run `filter` matches whose occurrence has no manual retry yet (decisions.md → Manual ' +
    'retry: one per occurrence, coalesced), oldest first, at most `max`. `dry_run` answers the runs and retries ' +
    'nothing; otherwise the answer is `202` with the operation (`GET /operations/{id}`).',
  examples: [{ filter: { sink_host: 'hooks.example.com', from: '2026-11-30T22:00:00Z' }, max: 500 }],
})
export class RecoverRunsDto {
  @IsDefined()
  @ValidateNested()
  @Type(() => RecoverRunFilterDto)
  filter: RecoverRunFilterDto;

  /** At most this many runs (default 1000). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(OPERATION_MAX_ITEMS)
  max?: number;

  /** Why; written into each retry's audit entry. */
  @Note()
  note?: string;

  /** Answer the matched runs and retry nothing. */
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}
