import { Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { JOB_KEY_MAX_LENGTH, JOB_KEY_PATTERN } from './dto/job-body.dto';
import type { KeyPreconditions } from './jobs-by-key.service';

/** `{key}` of `/jobs/by-key/{key}` (issue 42): a key that breaks the pattern is `400`, naming `key`. */
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

/** `If-Match: "<version>"` (or `*`) and `If-None-Match: *` of a PUT by key; anything else is `400`. */
export function parsePreconditions(ifMatch?: string, ifNoneMatch?: string): KeyPreconditions {
  const conditions: KeyPreconditions = {};
  if (ifMatch !== undefined) {
    const value = ifMatch.trim();
    const version = /^(?:W\/)?"?([1-9][0-9]{0,9})"?$/.exec(value);
    if (value === '*') {
      conditions.ifMatch = '*';
    } else if (version) {
      conditions.ifMatch = Number(version[1]);
    } else {
      throw new ValidationFailedError({ 'If-Match': 'must be "<version>" (the job’s ETag) or *' });
    }
  }
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== '*') {
      throw new ValidationFailedError({ 'If-None-Match': 'only * (create only) is supported' });
    }
    conditions.ifNoneMatch = '*';
  }
  return conditions;
}
