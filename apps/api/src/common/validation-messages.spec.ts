import { parseDuration } from '@svc/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { getMetadataSchema } from 'class-validator-jsonschema/build/decorators';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { validationErrorsToFields } from './validation';

/**
 * Every message of every DTO of the API (issue #26 item 4). The DTO classes are found on disk
 * (`apps/api/src/**\/*.dto.ts`), so a new DTO is walked without editing this test; each of its
 * fields gets a set of violating values (missing, null, wrong types, out of range, too long), and
 * every message that comes back must read as a sentence for a user: no validator internals, "is
 * required" exactly when the field is missing, ranges where the field has one, and examples that
 * the field itself accepts.
 */
type Ctor = new () => object;

function dtoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? dtoFiles(path) : name.endsWith('.dto.ts') ? [path] : [];
  });
}

const storage = getMetadataStorage();
const metadataOf = (cls: Ctor) => storage.getTargetValidationMetadatas(cls, '', true, false);

const DTOS: Array<[string, Ctor]> = dtoFiles(join(__dirname, '..')).flatMap((file) =>
  Object.entries(require(file) as Record<string, unknown>)
    .filter((entry): entry is [string, Ctor] => typeof entry[1] === 'function')
    .filter(([, cls]) => metadataOf(cls).length > 0),
);

const VIOLATIONS: unknown[] = [
  null,
  '',
  ' ',
  'x',
  '99x',
  '2026-13-45T99:00:00Z',
  'é'.repeat(300_000),
  -5,
  0,
  1.5,
  1e12,
  true,
  {},
  { unknown: 1 },
  [],
  [''],
  [1],
  ['x', 'x'],
  Array.from({ length: 300 }, (_, i) => `v${i}`),
];

/** Internals and template grammar a user must never read. */
const INTERNALS =
  /nested property|either object or array|\$property|\$constraint|\$value|Dto\b|each value in|a valid value|following values|should not|undefined|NaN|\[object|conforms to/i;

function valueAt(input: unknown, path: string): unknown {
  return path
    .replace(/\[(\d+)\]/g, '.$1') // `jobs[3].key` (BracketIndexes) reads as `jobs.3.key`
    .split('.')
    .reduce<unknown>(
      (value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined),
      input,
    );
}

function fieldsOf(cls: Ctor, input: Record<string, unknown>): Record<string, string> {
  return validationErrorsToFields(
    validateSync(plainToInstance(cls, input), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

describe('validation messages of every DTO', () => {
  it('should find the DTOs of the API', () => {
    const names = DTOS.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(['CreateJobDto', 'UpdateJobDto', 'WebhookConfigDto', 'RetryDto']));
    expect(names.length).toBeGreaterThan(20);
  });

  it.each(DTOS)('%s: every message reads as a sentence, "is required" exactly for a missing field', (_name, cls) => {
    const problems: string[] = [];
    const properties = [...new Set(metadataOf(cls).map((m) => m.propertyName))];
    const inputs: Array<Record<string, unknown>> = [{}];
    for (const property of properties) {
      for (const value of VIOLATIONS) {
        inputs.push({ [property]: value });
        // One level deeper: an object field whose own fields are missing or wrong.
        inputs.push({ [property]: { [properties[0]]: value, config: {}, expr: value } });
      }
    }
    for (const input of inputs) {
      for (const [path, message] of Object.entries(fieldsOf(cls, input))) {
        const where = `${path} = ${JSON.stringify(valueAt(input, path))?.slice(0, 40)}: "${message}"`;
        if (INTERNALS.test(message)) {
          problems.push(`${where} shows validator internals`);
        }
        if (valueAt(input, path) === undefined && message !== 'is required' && message !== 'unknown field') {
          problems.push(`${where} is missing but not "is required"`);
        }
        if (valueAt(input, path) !== undefined && message === 'is required') {
          problems.push(`${where} is present but "is required"`);
        }
        if (!/^(must|is|unknown field|each)\b/.test(message) && !/^[a-z]/.test(message)) {
          problems.push(`${where} is not a sentence about the field`);
        }
        const durations = /such as (\S+?)(?: or (\S+?))?, from (\S+) to (\S+)$/.exec(message);
        if (durations) {
          const [min, max] = [parseDuration(durations[3])!, parseDuration(durations[4])!];
          for (const example of [durations[1], durations[2]].filter(Boolean)) {
            const ms = parseDuration(example);
            if (ms === null || ms < min || ms > max) {
              problems.push(`${where}: the example ${example} is outside its own range`);
            }
          }
        }
      }
    }
    expect([...new Set(problems)]).toEqual([]);
  });

  it('should state the range of every bounded number and the length of every bounded string', () => {
    const missing: string[] = [];
    for (const [name, cls] of DTOS) {
      const metas = metadataOf(cls).filter((m) => !m.each);
      for (const property of new Set(metas.map((m) => m.propertyName))) {
        const arg = (n: string) => metas.find((m) => m.propertyName === property && m.name === n)?.constraints?.[0];
        const [min, max, maxLength] = [arg('min'), arg('max'), arg('maxLength')];
        if (min !== undefined && max !== undefined) {
          const message = fieldsOf(cls, { [property]: (max as number) + 1 })[property];
          if (!message?.includes(`from ${min} to ${max}`)) {
            missing.push(`${name}.${property}: "${message}" does not say from ${min} to ${max}`);
          }
        }
        if (maxLength !== undefined) {
          const message = fieldsOf(cls, { [property]: 'x'.repeat((maxLength as number) + 1) })[property];
          if (!message?.includes(String(maxLength))) {
            missing.push(`${name}.${property}: "${message}" does not say ${maxLength}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('should accept every example a DTO documents (the OpenAPI examples), whole or per field', () => {
    const refused: string[] = [];
    let examples = 0;
    for (const [name, cls] of DTOS) {
      const own = getMetadataSchema(cls.prototype, cls.name) as { examples?: unknown[]; example?: unknown };
      for (const example of [...(own.examples ?? []), ...(own.example === undefined ? [] : [own.example])]) {
        examples += 1;
        const fields = fieldsOf(cls, example as Record<string, unknown>);
        if (Object.keys(fields).length > 0) {
          refused.push(`${name} example ${JSON.stringify(example)}: ${JSON.stringify(fields)}`);
        }
      }
      for (const property of new Set(metadataOf(cls).map((m) => m.propertyName))) {
        const schema = getMetadataSchema(cls.prototype, property) as { examples?: unknown[]; example?: unknown };
        for (const example of [...(schema.examples ?? []), ...(schema.example === undefined ? [] : [schema.example])]) {
          examples += 1;
          const message = fieldsOf(cls, { [property]: example })[property];
          if (message !== undefined) {
            refused.push(`${name}.${property} example ${JSON.stringify(example)}: "${message}"`);
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(0);
    expect(refused).toEqual([]);
  });

  it('should answer the messages the issue quotes', () => {
    const { CreateJobDto, WebhookConfigDto, RetryDto } = require('../jobs/dto/job-body.dto') as Record<string, Ctor>;
    expect(fieldsOf(CreateJobDto, { schedule: { expr: 'every day' }, sink: { kind: 'webhook', config: {} } })).toEqual({
      name: 'is required',
    });
    expect(fieldsOf(CreateJobDto, { name: 'n', schedule: 'every day', sink: { kind: 'webhook', config: {} } })).toEqual(
      {
        schedule: 'must be an object',
      },
    );
    expect(fieldsOf(WebhookConfigDto, {})).toEqual({ url: 'is required' });
    expect(fieldsOf(WebhookConfigDto, { url: '' })).toEqual({
      url: 'must be a non-empty string of at most 2048 characters',
    });
    expect(fieldsOf(RetryDto, { max_attempts: 0 })).toEqual({ max_attempts: 'must be an integer from 1 to 20' });
    expect(fieldsOf(CreateJobDto, { name: 'n', schedule: {}, sink: {}, timeout: '1h30m' })).toEqual({
      'schedule.expr': 'is required',
      'sink.kind': 'is required',
      'sink.config': 'is required',
      timeout: 'must be a duration such as 30s or 90s, from 1s to 2m',
    });
  });
});
