import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import { SECRET_NAME_PATTERN } from './secret-limits';

const NAME_RULE = 'must match [A-Za-z_][A-Za-z0-9_]{0,63}: a letter or _, then up to 63 letters, digits or _';

/**
 * The `{name}` path parameter of the secrets routes. `PUT` creates under that name, so a
 * malformed one is `400 validation_failed` (field `name`); on `DELETE` no stored secret can have
 * it, so it is `404 not_found`, like a malformed id elsewhere.
 */
@Injectable()
export class SecretNamePipe implements PipeTransform<string, string> {
  /** The parameter in the OpenAPI document. */
  readonly jsonSchema = { type: 'string', pattern: SECRET_NAME_PATTERN.source };

  constructor(private readonly onInvalid: 'validation_failed' | 'not_found') {}

  transform(value: string): string {
    if (SECRET_NAME_PATTERN.test(value)) {
      return value;
    }
    if (this.onInvalid === 'not_found') {
      throw new NotFoundError('Secret');
    }
    throw new ValidationFailedError({ name: NAME_RULE });
  }
}

export const SecretNameToWritePipe = new SecretNamePipe('validation_failed');
export const SecretNameToFindPipe = new SecretNamePipe('not_found');
