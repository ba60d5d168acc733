import { Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { JOB_KEY_MAX_LENGTH, JOB_KEY_PATTERN } from './dto/job-body.dto';
import type { KeyPreconditions } from './jobs-by-key.service';

/** `{key}` of `/jobs/by-key/{key}`: a key that breaks the pattern is `400`, naming `key`. */
@Injectable()
export class JobKeyParamPipe implements PipeTransform<string, string> {
  /** The parameter in the OpenAPI document. */
  readonly jsonSchema = {
    type: 'string',
    pattern: JOB_KEY_PATTERN.source,
    minLength: 1,
    maxLength: JOB_KEY_MAX_LENGTH,
  };

  transform(value: string): string {
    if (value.length > JOB_KEY_MAX_LENGTH || !JOB_KEY_PATTERN.test(value)) {
      throw new ValidationFailedError({
        key: `must be 1 to ${JOB_KEY_MAX_LENGTH} characters of ${JOB_KEY_PATTERN.source}`,
      });
    }
    return value;
  }
}

export const JobKeyPipe = new JobKeyParamPipe();

/**
 * `If-Match: "<version>"` (a strong or weak ETag, quotes optional) or `*`; the OpenAPI document
 * states these patterns as the headers' schemas, so a value the document allows is never a `400`.
 * Only spaces and tabs around the value are ignored (what HTTP calls optional whitespace).
 */
export const IF_MATCH_PATTERN = /^[ \t]*(?:\*|(?:W\/)?"?([1-9][0-9]{0,9})"?)[ \t]*$/;
/** `If-None-Match: *` (create only) is the one form a PUT by key supports. */
export const IF_NONE_MATCH_PATTERN = /^[ \t]*\*[ \t]*$/;

/** `If-Match` and `If-None-Match` of a PUT by key, parsed; anything the patterns refuse is `400`. */
export function parsePreconditions(ifMatch?: string, ifNoneMatch?: string): KeyPreconditions {
  const conditions: KeyPreconditions = {};
  if (ifMatch !== undefined) {
    const match = IF_MATCH_PATTERN.exec(ifMatch);
    if (!match) {
      throw new ValidationFailedError({ 'If-Match': 'must be "<version>" (the job’s ETag) or *' });
    }
    conditions.ifMatch = match[1] === undefined ? '*' : Number(match[1]);
  }
  if (ifNoneMatch !== undefined) {
    if (!IF_NONE_MATCH_PATTERN.test(ifNoneMatch)) {
      throw new ValidationFailedError({ 'If-None-Match': 'only * (create only) is supported' });
    }
    conditions.ifNoneMatch = '*';
  }
  return conditions;
}
