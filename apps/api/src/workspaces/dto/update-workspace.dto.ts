import {
  ArrayMaxSize,
  IsArray,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { TASK_QUEUE_GLOB_PATTERN } from '@svc/delivery';
import { WORKSPACE_SLUG_PATTERN, WORKSPACE_SLUG_RULE } from '@svc/common/workspace-slug';
import { NOT_BLANK } from '../../common/validators';

export const WORKSPACE_NAME_MAX = 100;
/** At most this many task-queue patterns per workspace. */
export const WORKSPACE_TASK_QUEUE_PATTERNS_MAX = 50;

/**
 * `PATCH /api/v1/workspaces/{ws}`: `name`, `slug`, `temporal_workflow_task_queues`; each may be
 * omitted, only the last may be null (clears it).
 */
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

  /**
   * The task-queue patterns (`*` any run of characters) this workspace's `temporal_workflow` jobs
   * may target, within the server's allowlist: it narrows, never widens (docs/security.md).
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(WORKSPACE_TASK_QUEUE_PATTERNS_MAX)
  @IsString({ each: true })
  @Matches(new RegExp(TASK_QUEUE_GLOB_PATTERN), {
    each: true,
    message: 'each item must be a task-queue pattern: letters, digits, . _ : / - and *, at most 200 characters',
  })
  temporal_workflow_task_queues?: string[] | null;
}
