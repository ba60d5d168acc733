import { isBase64, registerDecorator, ValidationOptions } from 'class-validator';
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

/** A duration string (`30s`, `1h30m`) within [minMs, maxMs]. */
export function IsDuration(minMs = 0, maxMs = Number.MAX_SAFE_INTEGER, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isDuration',
      target: target.constructor,
      propertyName,
      constraints: [minMs, maxMs],
      options: { message: durationMessage(minMs, maxMs), ...options },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string') {
            return false;
          }
          const ms = parseDuration(value);
          return ms !== null && ms >= minMs && ms <= maxMs;
        },
      },
    });
}

/** An RFC 3339 timestamp with an explicit offset or Z. */
export function IsTimestamp(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isTimestamp',
      target: target.constructor,
      propertyName,
      options: { message: 'must be an RFC 3339 timestamp, e.g. 2026-12-01T09:00:00Z', ...options },
      validator: {
        validate(value: unknown) {
          return (
            typeof value === 'string' &&
            /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
            !Number.isNaN(Date.parse(value))
          );
        },
      },
    });
}

/** At most `max` UTF-8 bytes. */
export function MaxBytes(max: number, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'maxBytes',
      target: target.constructor,
      propertyName,
      constraints: [max],
      options: { message: `must be at most ${max} bytes`, ...options },
      validator: {
        validate(value: unknown) {
          return typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= max;
        },
      },
    });
}

/** A plain JSON object (not an array, not null). */
export function IsPlainObject(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPlainObject',
      target: target.constructor,
      propertyName,
      options: { message: 'must be an object', ...options },
      validator: {
        validate(value: unknown) {
          return typeof value === 'object' && value !== null && !Array.isArray(value);
        },
      },
    });
}

/**
 * A map of names to base64 strings (the metadata of a Temporal payload in protobuf JSON): a plain
 * object whose every value is canonical base64 (padding included).
 */
export function IsBase64Map(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isBase64Map',
      target: target.constructor,
      propertyName,
      options: { message: 'must be an object of base64 strings', ...options },
      validator: {
        validate(value: unknown) {
          return (
            typeof value === 'object' &&
            value !== null &&
            !Array.isArray(value) &&
            Object.values(value as Record<string, unknown>).every((v) => typeof v === 'string' && isBase64(v))
          );
        },
      },
    });
}
