import { IsString, MinLength } from 'class-validator';
import { MaxBytes } from '../../common/validators';

import { nameCursor } from '@svc/common';
import { SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES } from '../secret-limits';
import { PageQueryDto } from '../../common/page-query.dto';

/** Secrets are listed by name: the cursor is the last name. */
export const SECRET_CURSOR = nameCursor(SECRET_NAME_PATTERN);

/** `PUT /api/v1/secrets/{name}`: the value, write-only (decisions.md → Secrets: up to 8 KiB). */
export class PutSecretDto {
  /** The secret's value: 1 byte to 8 KiB of UTF-8. Stored encrypted; never returned or logged. */
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxBytes(SECRET_VALUE_MAX_BYTES)
  value: string;
}

/** `GET /api/v1/secrets`: cursor paging (spec → Endpoints: limit default 50, maximum 200). */
export class ListSecretsQueryDto extends PageQueryDto(SECRET_CURSOR) {}
