import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';

/** Flattens class-validator errors into the envelope's `fields`: input path → message. */
export function validationErrorsToFields(errors: ValidationError[], prefix = ''): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) {
      const messages = Object.entries(error.constraints).map(([key, message]) =>
        key === 'whitelistValidation' ? 'unknown field' : message.replace(`${error.property} `, ''),
      );
      fields[path] = messages[0];
    }
    if (error.children?.length) {
      Object.assign(fields, validationErrorsToFields(error.children, path));
    }
  }
  return fields;
}

/** The global pipe (style.md rule 4): strict whitelist, transform, errors as our envelope. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => new ValidationFailedError(validationErrorsToFields(errors)),
  });
}
