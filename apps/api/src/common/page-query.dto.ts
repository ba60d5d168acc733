import type { Type } from '@nestjs/common';
import { type CursorFormat, PAGE_LIMIT_MAX } from '@svc/common';
import { Type as TransformType } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/**
 * Cursor paging of every list endpoint (spec → Endpoints: `limit` default 50, maximum 200), for a
 * list whose cursors have `format`: the validation pipe refuses any other string with 400 naming
 * `cursor`, and the document's `pattern` is exactly the set the list accepts.
 */
export function PageQueryDto<T>(format: CursorFormat<T>): Type<{ limit?: number; cursor?: string }> {
  class PageQuery {
    @IsOptional()
    @TransformType(() => Number)
    @IsInt()
    @Min(1)
    @Max(PAGE_LIMIT_MAX)
    limit?: number;

    @IsOptional()
    @IsString()
    @Matches(format.pattern, { message: 'invalid cursor: pass the next_cursor of the previous page' })
    @JSONSchema({ description: 'The `next_cursor` of the previous page, as returned.' })
    cursor?: string;
  }
  return PageQuery;
}
