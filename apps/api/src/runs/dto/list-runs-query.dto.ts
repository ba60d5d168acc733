import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTimestamp } from '../../common/validators';
import { PageQueryDto } from '../../common/page-query.dto';

export class ListJobRunsQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(['running', 'deferred', 'succeeded', 'failed', 'skipped', 'cancelled'])
  status?: 'running' | 'deferred' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

  @IsOptional()
  @IsIn(['schedule', 'manual', 'retry_manual'])
  trigger?: 'schedule' | 'manual' | 'retry_manual';

  /** Only `true` filters; `false` is the same as omitting it. */
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  sla_breached?: boolean;

  /** Inclusive lower bound on scheduled_at (RFC 3339). */
  @IsOptional()
  @IsTimestamp()
  from?: string;

  /** Exclusive upper bound on scheduled_at (RFC 3339). */
  @IsOptional()
  @IsTimestamp()
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
