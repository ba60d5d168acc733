import { IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { WORKSPACE_SLUG_PATTERN, WORKSPACE_SLUG_RULE } from '@svc/common/workspace-slug';
import { NOT_BLANK } from '../../common/validators';

export const WORKSPACE_NAME_MAX = 100;

/** `PATCH /api/v1/workspaces/{ws}`: `name`, `slug`; either may be omitted, neither may be null. */
export class UpdateWorkspaceDto {
  /** Display name, 1..100 characters, not blank. */
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(WORKSPACE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  /** URL name, unique across the server: lowercase letters, digits, inner hyphens, 1..63. */
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @Matches(WORKSPACE_SLUG_PATTERN, { message: WORKSPACE_SLUG_RULE })
  slug?: string;
}
