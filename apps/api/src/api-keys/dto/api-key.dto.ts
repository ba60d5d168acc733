import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { SCOPES, type Scope } from '../../auth/scopes';
import { CURSORS } from '@svc/common';
import { PageQueryDto } from '../../common/page-query.dto';
import { NOT_BLANK } from '../../common/validators';

export const API_KEY_NAME_MAX = 100;

/** `POST /api/v1/api-keys` (spec → Endpoints → Workspace: `{name, scopes}`). */
export class CreateApiKeyDto {
  /** A label for people: where the key is used. 1..100 characters, not blank. */
  @IsString()
  @MinLength(1)
  @MaxLength(API_KEY_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name: string;

  /** Scopes of the key; default `["*"]` (full access). Omit rather than send null. */
  @ValidateIf((_, value) => value !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SCOPES.length)
  @ArrayUnique({ message: 'must not repeat a scope' })
  @IsIn(SCOPES, { each: true, message: `each scope must be one of ${SCOPES.join(', ')}` })
  scopes?: Scope[];
}

/** `GET /api/v1/api-keys`: cursor paging (spec → Endpoints: limit default 50, maximum 200). */
export class ListApiKeysQueryDto extends PageQueryDto(CURSORS.apiKeys) {}
