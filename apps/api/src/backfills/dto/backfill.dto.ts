import { IsBoolean, IsDefined, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { BACKFILL_MODES, type BackfillMode } from '@svc/persistence';
import { BACKFILL_MAX_RUNS } from '@svc/orchestration';
import { IsPlainObject, IsTimestamp } from '../../common/validators';

@JSONSchema({
  description:
    'Runs the job’s occurrences in `[from, to)` (at or before now) again, each with its nominal `scheduled_at`, ' +
    'as the schedule computes them in the job’s time zone (EXDATE, excluded calendars and skipped occurrences ' +
    'left out). `dry_run` answers the count and changes nothing.',
  examples: [
    { from: '2026-11-27T00:00:00Z', to: '2026-11-28T00:00:00Z', mode: 'parallel', max_runs: 4 },
    { from: '2026-11-27T00:00:00Z', to: '2026-11-28T00:00:00Z', dry_run: true },
  ],
})
export class BackfillDto {
  /** The first instant of the range (inclusive). */
  @IsDefined()
  @IsTimestamp()
  from: string;

  /** The end of the range (exclusive); occurrences after now are left to the schedule. */
  @IsDefined()
  @IsTimestamp()
  @JSONSchema({
    'x-server-check':
      'after `from`; the range holds at most `limits.backfill_max_occurrences` occurrences (default 10000)',
  })
  to: string;

  /** `sequential` (default): one run at a time, never beside the job’s own runs under its overlap policy; `parallel`: up to `max_runs` at once. */
  @IsOptional()
  @IsIn(BACKFILL_MODES)
  mode?: BackfillMode;

  /** `parallel`: runs at once (default 5, at most 50); ignored in `sequential` mode. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(BACKFILL_MAX_RUNS)
  max_runs?: number;

  /** An occurrence that already has a succeeded run is not run again (default true). */
  @IsOptional()
  @IsBoolean()
  skip_succeeded?: boolean;

  /** Answer the count and the range; nothing is written. */
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;

  /** One-off changes of the job’s sink for every run of the backfill (docs/api.md → Per-run overrides). */
  @IsOptional()
  @IsPlainObject()
  @JSONSchema({
    'x-server-check':
      'fields of the job’s sink for these runs only; the sink with them applied passes the job’s own sink ' +
      'validation (templates, existing `{{secret.NAME}}`), errors named `overrides.<field>`',
  })
  overrides?: Record<string, unknown>;
}
