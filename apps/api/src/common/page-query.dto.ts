import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Cursor paging of every list endpoint (spec → Endpoints: `limit` default 50, maximum 200). */
export class PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  /** The `next_cursor` of the previous page, as returned. */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}
