import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';

/** What a named path parameter (a calendar's, a secret's, a destination's) must be. */
export interface NameParamRule {
  /** The resource, as `404` names it: `Calendar`. */
  readonly what: string;
  /** The field of the `400` answer: `name`. */
  readonly field: string;
  /** Why a value was refused: the text of the `400` answer's field. */
  readonly rule: string;
  /** The parameter in the OpenAPI document. */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  readonly isValid: (value: string) => boolean;
}

/**
 * A named path parameter: `PUT` creates under it, so a malformed one is `400 validation_failed`
 * (with the rule's field); elsewhere nothing stored can have it: `404 not_found`, like a malformed id.
 */
@Injectable()
export class NameParamPipe implements PipeTransform<string, string> {
  readonly jsonSchema: Readonly<Record<string, unknown>>;

  constructor(
    private readonly param: NameParamRule,
    private readonly onInvalid: 'validation_failed' | 'not_found',
  ) {
    this.jsonSchema = param.jsonSchema;
  }

  transform(value: string): string {
    if (this.param.isValid(value)) {
      return value;
    }
    if (this.onInvalid === 'not_found') {
      throw new NotFoundError(this.param.what);
    }
    throw new ValidationFailedError({ [this.param.field]: this.param.rule });
  }
}

/** The two pipes of a named parameter: the one of `PUT` (`400`) and the one of the other routes (`404`). */
export function nameParamPipes(param: NameParamRule): { toWrite: NameParamPipe; toFind: NameParamPipe } {
  return { toWrite: new NameParamPipe(param, 'validation_failed'), toFind: new NameParamPipe(param, 'not_found') };
}
