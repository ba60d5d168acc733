import type { Type } from '@nestjs/common';
import { DomainError } from '@svc/common';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { createValidationPipe, findNulString } from './validation';

class NameDto {
  @IsString()
  name: string;
}

class LimitDto {
  @IsInt()
  @Min(1)
  @Max(20)
  limit: number;
}

class ActionDto {
  @Matches(/^[a-z.]+$/, { message: 'must be an action such as job.create' })
  action: string;
}

describe('findNulString', () => {
  it('should name the path of the first string with a NUL character', () => {
    expect(findNulString('fine')).toBeNull();
    expect(findNulString({ a: 'x', b: { c: ['ok', 'bad\u0000'] } })).toBe('b.c.1');
    expect(findNulString({ 'k\u0000': 1 })).toBe('k\u0000');
    expect(findNulString('\u0000')).toBe('');
    expect(findNulString({ n: 1, b: true, z: null })).toBeNull();
  });
});

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();

  /** The error the pipe answers for a body of `metatype` (`NameDto` unless given). */
  async function bodyErrorOf(value: unknown, metatype: Type<unknown> = NameDto): Promise<DomainError | undefined> {
    return caught(pipe.transform(value, { type: 'body', metatype }));
  }

  async function errorOf(value: unknown, data?: string): Promise<DomainError | undefined> {
    return data ? caught(pipe.transform(value, { type: 'param', metatype: String, data })) : bodyErrorOf(value);
  }

  async function caught(transformed: Promise<unknown>): Promise<DomainError | undefined> {
    try {
      await transformed;
      return undefined;
    } catch (err) {
      return err as DomainError;
    }
  }

  it('should answer 400 validation_failed naming the field for NUL characters (PostgreSQL text cannot hold them)', async () => {
    expect((await errorOf({ name: 'a\u0000b' }))?.body).toEqual({
      code: 'validation_failed',
      message: 'Request validation failed',
      fields: { name: 'must not contain NUL characters' },
    });
    expect((await errorOf('x\u0000', 'id'))?.body.fields).toEqual({ id: 'must not contain NUL characters' });
  });

  it('should refuse a body that is not a JSON object, even for a DTO whose fields are all optional', async () => {
    for (const value of [[], [{ name: 'x' }], 'str', 7, true, null, undefined]) {
      expect({ value, fields: (await errorOf(value))?.body.fields }).toEqual({
        value,
        fields: { body: 'must be a JSON object' },
      });
    }
  });

  it('should keep the whitelist and the envelope', async () => {
    expect((await errorOf({ name: 'ok', extra: 1 }))?.body.fields).toEqual({ extra: 'unknown field' });
    expect(await errorOf({ name: 'ok' })).toBeUndefined();
  });

  it('should state the range the DTO declares when a value is refused through the pipe', async () => {
    expect((await bodyErrorOf({ limit: 'x' }, LimitDto))?.body.fields).toEqual({
      limit: 'must be an integer from 1 to 20',
    });
  });

  it('should drop only the leading property name of a message, never the word elsewhere', async () => {
    expect((await errorOf({ name: 7 }))?.body.fields).toEqual({ name: 'must be a string' });
    expect((await bodyErrorOf({ action: 'Bad!' }, ActionDto))?.body.fields).toEqual({
      action: 'must be an action such as job.create',
    });
  });
});
