import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import { DESTINATION_MAX_LENGTH, DESTINATION_PATTERN, DESTINATION_RULE, isDestination } from '@svc/delivery';

/**
 * The `{destination}` path parameter (issue 46): `PUT` creates under it, so a malformed one is `400`
 * (field `destination`); elsewhere no destination can have it: `404`, like a malformed id.
 */
@Injectable()
export class DestinationPipe implements PipeTransform<string, string> {
  readonly jsonSchema = { type: 'string', maxLength: DESTINATION_MAX_LENGTH, pattern: DESTINATION_PATTERN.source };

  constructor(private readonly onInvalid: 'validation_failed' | 'not_found') {}

  transform(value: string): string {
    if (isDestination(value)) {
      return value;
    }
    if (this.onInvalid === 'not_found') {
      throw new NotFoundError('Destination');
    }
    throw new ValidationFailedError({ destination: `must be ${DESTINATION_RULE}` });
  }
}

export const DestinationToWritePipe = new DestinationPipe('validation_failed');
export const DestinationToFindPipe = new DestinationPipe('not_found');
