import { getMetadataStorage, type ValidationError } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/**
 * The message of one invalid field, as a sentence a user understands. The
 * class-validator defaults name one constraint at a time ("must be shorter than or equal to 200
 * characters" for a missing name, "nested property schedule must be either object or array"), so
 * the message is composed from every constraint the field declares instead:
 *
 * - a missing field: "is required"; a `null` one (PATCH refuses it where there is no default):
 *   "must not be null";
 * - a message the DTO wrote itself (`{ message }`, and the project's own validators) wins;
 * - otherwise "must be" + what the field accepts, with its range or values: "must be an integer
 *   from 1 to 20", "must be a non-empty string of at most 200 characters", "must be one of
 *   exponential, linear, fixed", "must be a list of at most 50 non-empty strings of at most 64
 *   characters".
 */
export function fieldMessage(error: ValidationError): string {
  const failed = Object.keys(error.constraints ?? {});
  if (failed.includes('whitelistValidation')) {
    return 'unknown field';
  }
  if (error.value === undefined) {
    return 'is required';
  }
  if (error.value === null) {
    return 'must not be null';
  }
  // Fails only for a value that is neither an object nor a list (also for an item of a list).
  if (failed.includes('nestedValidation')) {
    return 'must be an object';
  }
  const declared = declaredConstraints(error);
  for (const name of failed) {
    const meta = declared.find((m) => constraintName(m) === name);
    if (meta?.message !== undefined) {
      return stripProperty(error.constraints![name], error.property);
    }
  }
  return `must be ${describe(declared)}`;
}

function declaredConstraints(error: ValidationError): ValidationMetadata[] {
  const target = error.target?.constructor;
  if (!target) {
    return [];
  }
  return getMetadataStorage()
    .getTargetValidationMetadatas(target, '', true, false)
    .filter((m) => m.propertyName === error.property);
}

/** The key class-validator files a failure under: the decorator's name, or the metadata type. */
function constraintName(meta: ValidationMetadata): string {
  return meta.name ?? meta.type;
}

function stripProperty(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

/** What a value must be, from the constraints of one level (the field, or each of its items). */
function describe(metas: ValidationMetadata[]): string {
  const own = metas.filter((m) => !m.each);
  const each = metas.filter((m) => m.each);
  const has = (name: string) => own.find((m) => constraintName(m) === name);
  const arg = (name: string) => has(name)?.constraints?.[0] as number | undefined;

  if (has('isArray') || each.length > 0) {
    const size = range(arg('arrayMinSize'), arg('arrayMaxSize'), 'items', true);
    const items = each.length > 0 ? ` of ${plural(describe(each.map((m) => ({ ...m, each: false }))))}` : '';
    const unique = has('arrayUnique') ? ', without repeats' : '';
    return `a list${size}${items}${unique}`;
  }
  const isIn = has('isIn');
  if (isIn) {
    return `one of ${(isIn.constraints[0] as unknown[]).join(', ')}`;
  }
  if (has('isBase64')) {
    return 'a base64 string';
  }
  if (has('isBoolean')) {
    return 'true or false';
  }
  if (has('isInt') || has('isNumber')) {
    return `${has('isInt') ? 'an integer' : 'a number'}${range(arg('min'), arg('max'), '', false)}`;
  }
  if (has('nestedValidation') || has('isPlainObject')) {
    return 'an object';
  }
  if (has('isString') || has('isNotEmpty') || has('maxLength')) {
    const nonEmpty = has('isNotEmpty') || (arg('minLength') ?? 0) > 0 ? 'a non-empty string' : 'a string';
    const length = range(undefined, arg('maxLength'), 'characters', true);
    const bytes = range(undefined, arg('maxBytes'), 'bytes', true);
    return `${nonEmpty}${length}${bytes}`;
  }
  return 'a valid value';
}

/** " from 1 to 20", " of at most 200 characters", " of at least 1" — or nothing. */
function range(min: number | undefined, max: number | undefined, unit: string, size: boolean): string {
  const u = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) {
    return size ? ` of ${min} to ${max}${u}` : ` from ${min} to ${max}${u}`;
  }
  if (max !== undefined) {
    return ` of at most ${max}${u}`;
  }
  if (min !== undefined) {
    return ` of at least ${min}${u}`;
  }
  return '';
}

/** "a non-empty string of at most 64 characters" → "non-empty strings of at most 64 characters". */
function plural(single: string): string {
  return single
    .replace(/^an? /, '')
    .replace(
      /^(non-empty )?(string|integer|number|object|list)/,
      (_m, pre: string | undefined, noun: string) => `${pre ?? ''}${noun}s`,
    );
}
