import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, Matches } from 'class-validator';
import { ID_PREFIXES } from '@svc/workflow-contract/ids';

/** Windows of `GET /api/v1/stats/jobs/hourly`: how many hourly buckets each one has. */
export const HOURLY_WINDOW_HOURS = { '24h': 24 } as const;
export type HourlyWindow = keyof typeof HOURLY_WINDOW_HOURS;
export const HOURLY_WINDOWS = Object.keys(HOURLY_WINDOW_HOURS) as HourlyWindow[];

/** Job ids one request may name. */
export const HOURLY_MAX_JOB_IDS = 200;

const JOB_ID = new RegExp(`^${ID_PREFIXES.job}_[0-9A-HJKMNP-TV-Z]{26}$`);

/** `job_id=a,b` and `job_id=a&job_id=b` alike: one list of non-empty, trimmed items. */
function jobIdList(value: unknown): unknown {
  if (typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
    return ([] as string[])
      .concat(value)
      .flatMap((part) => part.split(','))
      .map((id) => id.trim())
      .filter((id) => id !== '');
  }
  return value;
}

/** `GET /api/v1/stats/jobs/hourly?window=24h&job_id=…` (default window `24h`, like the overview). */
export class JobHourlyQueryDto {
  @IsOptional()
  @IsIn(HOURLY_WINDOWS, { message: `must be one of ${HOURLY_WINDOWS.join(', ')}` })
  window?: HourlyWindow;

  /** Only these jobs (comma-separated or the parameter repeated), at most 200. */
  @IsOptional()
  @Transform(({ value }) => jobIdList(value))
  @IsArray()
  @ArrayMinSize(1, { message: 'must name at least one job id' })
  @ArrayMaxSize(HOURLY_MAX_JOB_IDS, { message: `must name at most ${HOURLY_MAX_JOB_IDS} job ids` })
  @Matches(JOB_ID, { each: true, message: 'must be job ids (job_…), comma-separated or repeated' })
  job_id?: string[];
}
