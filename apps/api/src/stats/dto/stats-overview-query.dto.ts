import { IsIn, IsOptional } from 'class-validator';

export const STATS_WINDOWS = ['1h', '24h', '7d', '30d'] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];

/** `GET /api/v1/stats/overview?window=…` (spec → Stats overview; decisions.md: default `24h`). */
export class StatsOverviewQueryDto {
  @IsOptional()
  @IsIn(STATS_WINDOWS, { message: `must be one of ${STATS_WINDOWS.join(', ')}` })
  window?: StatsWindow;
}
