/**
 * One error vocabulary (style.md rule 7): services throw these; the API's single exception filter
 * maps them to the spec's envelope `{error: {code, message, fields?, errors?, limit?, value?}}`.
 * No framework imports here.
 */
export const ERROR_CODES = [
  'validation_failed',
  'unauthorized',
  'forbidden',
  'limit_exceeded',
  'workspace_suspended',
  'not_found',
  'method_not_allowed',
  'conflict',
  'idempotency_conflict',
  'precondition_failed',
  'rate_limited',
  'internal',
  'unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  fields?: Record<string, string>;
  errors?: unknown[];
  limit?: string;
  value?: number | string;
}

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
    this.name = 'DomainError';
  }
}

export class ValidationFailedError extends DomainError {
  constructor(fields: Record<string, string>, message = 'Request validation failed', errors?: unknown[]) {
    super(400, { code: 'validation_failed', message, fields, ...(errors ? { errors } : {}) });
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Missing, invalid or revoked credentials') {
    super(401, { code: 'unauthorized', message });
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Not allowed for these credentials') {
    super(403, { code: 'forbidden', message });
  }
}

export class LimitExceededError extends DomainError {
  constructor(limit: string, value: number | string, message: string, status = 403) {
    super(status, { code: 'limit_exceeded', message, limit, value });
  }
}

export class WorkspaceSuspendedError extends DomainError {
  constructor() {
    super(403, {
      code: 'workspace_suspended',
      message: 'This workspace is suspended; reads are allowed, changes are not',
    });
  }
}

export class NotFoundError extends DomainError {
  constructor(what = 'Resource') {
    super(404, { code: 'not_found', message: `${what} not found` });
  }
}

/** A method the path does not serve (its `Allow` header lists those it does): 405. */
export class MethodNotAllowedError extends DomainError {
  constructor(
    readonly method: string,
    readonly allow: readonly string[],
  ) {
    super(405, { code: 'method_not_allowed', message: `${method} is not allowed here; use ${allow.join(', ')}` });
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super(409, { code: 'conflict', message });
  }
}

/** `If-Match` / `If-None-Match` did not hold (PUT by key): 412, nothing written. */
export class PreconditionFailedError extends DomainError {
  constructor(message: string) {
    super(412, { code: 'precondition_failed', message });
  }
}

export class IdempotencyConflictError extends DomainError {
  constructor() {
    super(409, {
      code: 'idempotency_conflict',
      message: 'Idempotency-Key was already used with a different request body',
    });
  }
}

export class RateLimitedError extends DomainError {
  constructor(message = 'Too many requests; wait for Retry-After') {
    super(429, { code: 'rate_limited', message });
  }
}

export class UnavailableError extends DomainError {
  constructor(message = 'A dependency is unavailable; retry') {
    super(503, { code: 'unavailable', message });
  }
}
