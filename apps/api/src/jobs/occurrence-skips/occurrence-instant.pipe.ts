import { Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { isTimestamp } from '../../common/validators';

/** The `{at}` path parameter: an RFC 3339 instant (`2026-12-01T09:00:00Z`), read as a `Date`; else `400` naming `at`. */
@Injectable()
export class OccurrenceInstantPipe implements PipeTransform<string, Date> {
  /** The parameter in the OpenAPI document. */
  readonly jsonSchema = { type: 'string', format: 'date-time' };

  transform(value: string): Date {
    if (!isTimestamp(value)) {
      throw new ValidationFailedError({ at: 'must be an RFC 3339 timestamp, e.g. 2026-12-01T09:00:00Z' });
    }
    return new Date(value);
  }
}
