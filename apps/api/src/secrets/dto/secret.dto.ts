import { IsString, MinLength } from 'class-validator';
import { MaxBytes } from '../../common/validators';
import { SECRET_VALUE_MAX_BYTES } from '../secret-limits';
import { PageQueryDto } from '../../common/page-query.dto';

/** `PUT /api/v1/secrets/{name}`: the value, write-only (decisions.md → Secrets: up to 8 KiB). */
export class PutSecretDto {
  /** The secret's value: 1 byte to 8 KiB of UTF-8. Stored encrypted; never returned or logged. */
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxBytes(SECRET_VALUE_MAX_BYTES)
  value: string;
}

/** `GET /api/v1/secrets`: cursor paging (spec → Endpoints: limit default 50, maximum 200). */
export class ListSecretsQueryDto extends PageQueryDto {}
