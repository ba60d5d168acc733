import {
  isBase64,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  registerDecorator,
  ValidationOptions,
} from 'class-validator';
import { formatDuration, parseDuration } from '@svc/common';

const DURATION_EXAMPLES = ['30s', '90s', '5m', '1h30m', '6h', '2d', '500ms'];

/** Up to two example durations inside [minMs, maxMs] (an example must be one the field accepts). */
export function durationExamples(minMs: number, maxMs: number): string[] {
  return DURATION_EXAMPLES.filter((e) => {
    const ms = parseDuration(e)!;
    return ms >= minMs && ms <= maxMs;
  }).slice(0, 2);
}

/** The message of a duration field, with its range and examples inside it. */
export function durationMessage(minMs: number, maxMs: number): string {
  const examples = durationExamples(minMs, maxMs);
  const such = examples.length > 0 ? ` such as ${examples.join(' or ')}` : '';
  return `must be a duration${such}, from ${formatDuration(minMs)} to ${formatDuration(maxMs)}`;
}

const DURATION_UNITS = ['d', 'h', 'm', 's', 'ms'];

/**
 * The duration strings of at least `minMs` (0, or a power of ten up to 1000) as a regular
 * expression: parseDuration's grammar (units once each, descending) where some part is non-zero
 * enough. The OpenAPI document states it; maxima are checked by the server only (a sum of parts
 * below a bound has no regular expression of useful size).
 */
export function durationPattern(minMs: number): string {
  const part = (unit: string) => `(?:[0-9]+${unit})?`;
  if (minMs === 0) {
    // Not empty: the first part present is any number of its unit.
    const firsts = DURATION_UNITS.map(
      (unit, i) =>
        `[0-9]+${unit}${DURATION_UNITS.slice(i + 1)
          .map(part)
          .join('')}`,
    );
    return `^(?:${firsts.join('|')})$`;
  }
  if (![1, 10, 100, 1000].includes(minMs)) {
    throw new Error(`durationPattern: no pattern for a minimum of ${minMs} ms`);
  }
  const wholeUnits = DURATION_UNITS.slice(0, 4);
  const alternatives = wholeUnits.map(
    (unit, i) =>
      `${wholeUnits.slice(0, i).map(part).join('')}0*[1-9][0-9]*${unit}${DURATION_UNITS.slice(i + 1)
        .map(part)
        .join('')}`,
  );
  alternatives.push(`${wholeUnits.map(part).join('')}0*[1-9][0-9]{${String(minMs).length - 1},}ms`);
  return `^(?:${alternatives.join('|')})$`;
}

/**
 * Not blank, and no NUL: some character other than whitespace. Whitespace is spelled out (what
 * JavaScript's `\s` matches) so that the document's pattern means the same in every regex engine.
 */
export const NOT_BLANK =
  // eslint-disable-next-line no-control-regex -- NUL is the character this pattern must exclude
  /^[^\u0000]*[^\u0000\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff][^\u0000]*$/;

/**
 * A property decorator of one rule: `name` and `constraints` as class-validator records them (the
 * OpenAPI document reads them), `message` unless the options give another.
 */
function fieldRule(
  name: string,
  message: string,
  validate: (value: unknown) => boolean,
  options?: ValidationOptions,
  constraints?: unknown[],
) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName,
      constraints,
      options: { message, ...options },
      validator: { validate },
    });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A duration string (`30s`, `1h30m`) within [minMs, maxMs]. */
export function IsDuration(minMs = 0, maxMs = Number.MAX_SAFE_INTEGER, options?: ValidationOptions) {
  const validate = (value: unknown) => {
    if (typeof value !== 'string') {
      return false;
    }
    const ms = parseDuration(value);
    return ms !== null && ms >= minMs && ms <= maxMs;
  };
  return fieldRule('isDuration', durationMessage(minMs, maxMs), validate, options, [minMs, maxMs]);
}

/**
 * RFC 3339 date-time with an explicit offset or `Z` (`T` and `Z` in either case), a year from 0001
 * (PostgreSQL has no year 0), hours 00-23, minutes and seconds 00-59; the OpenAPI document states
 * this same pattern beside `format: date-time`.
 */
export const TIMESTAMP_PATTERN =
  '^(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])' +
  '[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$';
const TIMESTAMP = new RegExp(TIMESTAMP_PATTERN);

/** A timestamp of TIMESTAMP_PATTERN on a real calendar day (no 31 February). */
export function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP.test(value)) {
    return false;
  }
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  return day <= new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** An RFC 3339 timestamp with an explicit offset or Z. */
export function IsTimestamp(options?: ValidationOptions) {
  return fieldRule('isTimestamp', 'must be an RFC 3339 timestamp, e.g. 2026-12-01T09:00:00Z', isTimestamp, options);
}

/** At most `max` UTF-8 bytes. */
export function MaxBytes(max: number, options?: ValidationOptions) {
  const validate = (value: unknown) => typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= max;
  return fieldRule('maxBytes', `must be at most ${max} bytes`, validate, options, [max]);
}

/** A plain JSON object (not an array, not null). */
export function IsPlainObject(options?: ValidationOptions) {
  return fieldRule('isPlainObject', 'must be an object', isPlainObject, options);
}

/**
 * A map of names to base64 strings (the metadata of a Temporal payload in protobuf JSON): a plain
 * object whose every value is canonical base64 (padding included).
 */
export function IsBase64Map(options?: ValidationOptions) {
  const validate = (value: unknown) =>
    isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string' && isBase64(v));
  return fieldRule('isBase64Map', 'must be an object of base64 strings', validate, options);
}

type FieldDecorator = (target: object, property: string) => void;

/**
 * Property decorators as one, for a field a create and an update DTO share: they are applied as
 * they would be written above the property (the last one first), so that the metadata, the order
 * of the checks and the OpenAPI document stay as if written inline. The update adds `@IsOptional()`.
 */
export function Rules(...decorators: FieldDecorator[]): FieldDecorator {
  return (target, property) => {
    for (const decorator of [...decorators].reverse()) {
      decorator(target, property);
    }
  };
}

/** A string, not empty, of at most `maxLength` characters (a name, a label, a filter's text). */
export const NonEmptyString = (maxLength: number) => Rules(IsString(), IsNotEmpty(), MaxLength(maxLength));

/** An optional RFC 3339 timestamp (a range's `from` or `to`, a window's end). */
export const OptionalTimestamp = () => Rules(IsOptional(), IsTimestamp());
