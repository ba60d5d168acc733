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

/**
 * The class of an error that is no more than its status, its code and its message (`defaultMessage`
 * unless the thrower says more).
 */
function errorClass(status: number, code: ErrorCode, defaultMessage: string) {
  return class extends DomainError {
    constructor(message = defaultMessage) {
      super(status, { code, message });
    }
  };
}

export class ValidationFailedError extends DomainError {
  constructor(fields: Record<string, string>, message = 'Request validation failed', errors?: unknown[]) {
    super(400, { code: 'validation_failed', message, fields, ...(errors ? { errors } : {}) });
  }
}

export class UnauthorizedError extends errorClass(401, 'unauthorized', 'Missing, invalid or revoked credentials') {}

export class ForbiddenError extends errorClass(403, 'forbidden', 'Not allowed for these credentials') {}

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

export class RateLimitedError extends errorClass(429, 'rate_limited', 'Too many requests; wait for Retry-After') {}

export class UnavailableError extends errorClass(503, 'unavailable', 'A dependency is unavailable; retry') {}
