import { Injectable } from '@nestjs/common';
import { ConflictError, IdempotencyConflictError, ValidationFailedError } from '@svc/common';
import { IdempotencyRepository, type JsonValue } from '@svc/persistence';
import { createHash } from 'node:crypto';

const WINDOW_MS = 24 * 3_600_000;
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 100;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Canonical JSON (sorted keys) so the same body with another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonical).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * How a response is kept for replay when it must not be stored as sent (a one-time secret such as
 * a new API key is sealed to its caller; see caller-seal.ts). Default: stored as is.
 */
export interface ReplayCodec<T> {
  store(result: T): JsonValue;
  replay(stored: JsonValue): T;
}

/**
 * `Idempotency-Key` on create endpoints (decisions.md → Idempotency), called by
 * IdempotencyInterceptor for `@Idempotent()` routes: the same key and body within 24 h replays the
 * first successful response; another body is `409 idempotency_conflict`; concurrent duplicates
 * create one resource (the claim is a primary-key insert; a duplicate waits for the first to
 * finish and answers as it did). A request that fails releases its claim, so a retry runs again.
 */
@Injectable()
export class IdempotencyService {
  constructor(private readonly records: IdempotencyRepository) {}

  /**
   * `caller`: the request's AuthContext; keys are per workspace. `statusCode`: the status of the
   * first answer, read once it succeeded (recorded with it).
   */
  async execute<T>(
    caller: { workspaceId: string },
    scope: string,
    key: string | undefined,
    body: unknown,
    run: () => Promise<T>,
    codec?: ReplayCodec<T>,
    statusCode: () => number = () => 200,
  ): Promise<T> {
    if (key === undefined) {
      return run();
    }
    if (!KEY_PATTERN.test(key)) {
      throw new ValidationFailedError({ 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' });
    }
    const hash = createHash('sha256').update(canonical(body)).digest('hex');
    await this.records.releaseIfOlder(caller.workspaceId, scope, key, new Date(Date.now() - WINDOW_MS));
    if (await this.records.claim(caller.workspaceId, scope, key, hash)) {
      try {
        const result = await run();
        const stored = codec ? codec.store(result) : (result as unknown as JsonValue);
        await this.records.complete(caller.workspaceId, scope, key, statusCode(), stored);
        return result;
      } catch (err) {
        await this.records.release(caller.workspaceId, scope, key);
        throw err;
      }
    }
    const stored = await this.replay(caller.workspaceId, scope, key, hash);
    return codec ? codec.replay(stored) : (stored as T);
  }

  /** Waits (bounded) for the first request with this key to finish, then answers as it did. */
  private async replay(workspaceId: string, scope: string, key: string, hash: string): Promise<JsonValue> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const record = await this.records.find(workspaceId, scope, key);
      if (!record) {
        throw new ConflictError('The first request with this Idempotency-Key failed; retry it');
      }
      if (record.requestHash !== hash) {
        throw new IdempotencyConflictError();
      }
      if (record.statusCode !== null) {
        return record.responseBody as JsonValue;
      }
      if (Date.now() > deadline) {
        throw new ConflictError('A request with this Idempotency-Key is still in progress');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
