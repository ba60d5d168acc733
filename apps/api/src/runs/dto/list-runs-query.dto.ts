import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { OptionalTimestamp } from '../../common/validators';
import { CURSORS } from '@svc/common';
import { PageQueryDto } from '../../common/page-query.dto';

export class ListJobRunsQueryDto extends PageQueryDto(CURSORS.runs) {
  @IsOptional()
  @IsIn(['running', 'deferred', 'succeeded', 'failed', 'skipped', 'cancelled'])
  status?: 'running' | 'deferred' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

  @IsOptional()
  @IsIn(['schedule', 'manual', 'retry_manual', 'backfill'])
  trigger?: 'schedule' | 'manual' | 'retry_manual' | 'backfill';

  /** Only `true` filters; `false` is the same as omitting it. */
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  sla_breached?: boolean;

  /**
   * Only `true` filters: open runs whose workflow runs in Temporal but does not progress (past
   * the retry budget, or no heartbeat for longer than the heartbeat timeout), each with what
   * Temporal says it waits on (docs/operations.md → Stuck runs). Examines the oldest 200 open runs;
   * `next_cursor` is always null.
   */
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  @JSONSchema({
    description:
      'Only `true` filters: open runs whose workflow runs in Temporal but does not progress (past the retry budget, or no heartbeat for longer than the heartbeat timeout), each with a `stuck` object: the reasons and what Temporal says it waits on. Examines the oldest 200 open runs; `next_cursor` is null.',
  })
  stuck?: boolean;

  /** Inclusive lower bound on scheduled_at (RFC 3339). */
  @OptionalTimestamp()
  from?: string;

  /** Exclusive upper bound on scheduled_at (RFC 3339). */
  @OptionalTimestamp()
  to?: string;
}

export class ListRunsQueryDto extends ListJobRunsQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  job_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  tag?: string;
}
