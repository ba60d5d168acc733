import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { plainToInstance } from 'class-transformer';
import { fieldMessage } from './validation-messages';

const BRACKET_INDEXES = 'svc:validation:bracket-indexes';

/**
 * Items of this array property are named `jobs[3].schedule.expr` in `fields` rather
 * than class-validator's `jobs.3.schedule.expr`, which older arrays (the codec's `payloads.0`) keep.
 */
export const BracketIndexes = (): PropertyDecorator => (target, property) =>
  Reflect.defineMetadata(BRACKET_INDEXES, true, target, property);

const COLLECTS_STAGE_ERRORS = 'svc:validation:collects-stage-errors';

/**
 * Every error at once: a body of this class that fails its own checks is not refused by
 * the pipe; it reaches the handler with its `fields` kept aside (`pendingFieldErrors`), so the
 * service runs its later stages (schedule, sink, retry…) on what is usable and answers ONE `400`
 * with every field. Only for bodies whose services read `pendingFieldErrors` and throw before
 * anything is written (the job bodies: jobs.service, jobs-by-key, jobs-apply, sink-test).
 */
export const CollectsStageErrors = (): ClassDecorator => (target) =>
  Reflect.defineMetadata(COLLECTS_STAGE_ERRORS, true, target);

const OPTIONAL_BODY = 'svc:validation:optional-body';

/**
 * A body of this class may be left out (an action `POST` whose fields are all optional, such as a
 * trigger's `overrides`): no body is an empty one. The OpenAPI document marks it not required.
 */
export const OptionalBody = (): ClassDecorator => (target) => Reflect.defineMetadata(OPTIONAL_BODY, true, target);

/** Whether `type` is an `@OptionalBody()` DTO. */
export function isOptionalBody(type: unknown): boolean {
  return typeof type === 'function' && Reflect.getMetadata(OPTIONAL_BODY, type) === true;
}

const pendingFields = new WeakMap<object, Record<string, string>>();

/** The body's own (class-validator) errors, when the pipe handed it on; `{}` for a valid body. */
export function pendingFieldErrors(dto: object): Record<string, string> {
  return pendingFields.get(dto) ?? {};
}

/** Flattens class-validator errors into the envelope's `fields`: input path → message. */
export function validationErrorsToFields(
  errors: ValidationError[],
  prefix = '',
  bracketed = false,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const error of errors) {
    const path = !prefix ? error.property : bracketed ? `${prefix}[${error.property}]` : `${prefix}.${error.property}`;
    if (error.constraints) {
      fields[path] = fieldMessage(error);
    }
    if (error.children?.length) {
      const brackets =
        typeof error.target === 'object' &&
        error.target !== null &&
        Reflect.getMetadata(BRACKET_INDEXES, error.target, error.property) === true;
      Object.assign(fields, validationErrorsToFields(error.children, path, brackets));
    }
  }
  return fields;
}

/**
 * The input path of the first string containing a NUL character (`\u0000`), or null. PostgreSQL
 * text cannot store NUL, so such input would otherwise end as a 500 at the first write or query.
 */
export function findNulString(value: unknown, path = ''): string | null {
  if (typeof value === 'string') {
    return value.includes('\u0000') ? path : null;
  }
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key.includes('\u0000')) {
        return path ? `${path}.${key}` : key;
      }
      const found = findNulString(child, path ? `${path}.${key}` : key);
      if (found !== null) {
        return found;
      }
    }
  }
  return null;
}

/**
 * The global pipe (style.md rule 4): strict whitelist, transform, errors as our envelope; strings
 * with NUL characters anywhere in a body, query or path parameter are `400 validation_failed`.
 */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value === undefined && isOptionalBody(metadata.metatype)) {
      value = {};
    }
    // class-validator checks a primitive, an array or a missing body as an empty object, so a
    // DTO whose fields are all optional (PATCH) would accept `[]`, `"x"` or `null`.
    if (metadata.type === 'body' && isDtoClass(metadata.metatype) && !isPlainObject(value)) {
      throw new ValidationFailedError({ body: 'must be a JSON object' });
    }
    if (metadata.type !== 'custom') {
      const path = findNulString(value);
      if (path !== null) {
        throw new ValidationFailedError({
          [path || metadata.data || metadata.type]: 'must not contain NUL characters',
        });
      }
    }
    if (metadata.type === 'body' && Reflect.getMetadata(COLLECTS_STAGE_ERRORS, metadata.metatype!) === true) {
      try {
        return (await super.transform(value, metadata)) as unknown;
      } catch (err) {
        if (!(err instanceof ValidationFailedError)) {
          throw err;
        }
        const dto = plainToInstance(metadata.metatype!, value) as object;
        pendingFields.set(dto, err.body.fields ?? {});
        return dto;
      }
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

const NOT_DTOS: unknown[] = [String, Number, Boolean, Array, Object];

function isDtoClass(metatype: unknown): boolean {
  return typeof metatype === 'function' && !NOT_DTOS.includes(metatype);
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    // fieldMessage reads the DTO's declared constraints through the error's target; the errors
    // never leave the process (the factory keeps only the messages).
    validationError: { target: true },
    exceptionFactory: (errors) => new ValidationFailedError(validationErrorsToFields(errors)),
  });
}

/** A body without the top-level fields its own checks refused (`schedule` for `schedule.expr`). */
export function withoutRefused<T extends object>(dto: T, pending: Record<string, string>): Partial<T> {
  const refused = new Set(Object.keys(pending).map((path) => path.split(/[.[]/)[0]));
  return Object.fromEntries(Object.entries(dto).filter(([field]) => !refused.has(field))) as Partial<T>;
}
