import { SetMetadata } from '@nestjs/common';

const IDEMPOTENT = 'svc:idempotent';

/** How a route answers `Idempotency-Key` (decisions.md → Idempotency). */
export interface IdempotentOptions {
  /**
   * The response field holding a one-time secret (a new API key, a signing secret): the replay
   * record keeps it sealed to the caller's credential, and only that caller's replay shows it
   * (caller-seal.ts).
   */
  sealed?: string;
  /** What of the body makes two requests the same one; default: the whole body (none is `{}`). */
  fingerprint?: (body: Record<string, unknown>) => unknown;
}

/**
 * Marks a create route as idempotent: `IdempotencyInterceptor` replays the first successful answer
 * for the same workspace, route and key (same body), answers `409 idempotency_conflict` for another
 * body, and lets concurrent duplicates create one resource. The OpenAPI document offers the
 * `Idempotency-Key` header on these routes.
 */
export const Idempotent = (options: IdempotentOptions = {}): MethodDecorator => SetMetadata(IDEMPOTENT, options);

/** The `@Idempotent()` options of a handler; undefined when it is not idempotent. */
export function idempotentOptions(handler: object): IdempotentOptions | undefined {
  return Reflect.getMetadata(IDEMPOTENT, handler) as IdempotentOptions | undefined;
}
