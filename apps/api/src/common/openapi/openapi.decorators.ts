import { SetMetadata } from '@nestjs/common';
import type { JsonSchema } from './schema';

export const API_OPERATION = 'svc:openapi:operation';

/** A success response: its body schema (`null` for no body, e.g. `204`), or the schema with a description. */
export type ResponseDoc =
  | JsonSchema
  | null
  | { description: string; schema: JsonSchema | null; /** default `application/json` */ contentType?: string };

export interface ApiOperationDoc {
  /** One line: what the operation does. */
  summary: string;
  /** Success responses by status. Error responses (the envelope) are added by the generator. */
  responses: Record<number, ResponseDoc>;
  /** Longer text, Markdown. */
  description?: string;
  /** Inputs the server checks beyond their schema (see `ServerChecks`), by input path. */
  serverChecks?: Record<string, string>;
}

/**
 * What a route answers, for the generated OpenAPI document (openapi/openapi.document.ts).
 * Requests need nothing here: parameters and bodies come from the handler's `@Param`, `@Query`,
 * `@Headers` and `@Body` and their class-validator DTOs. `openapi.spec.ts` fails for a route without
 * it, and `test/e2e/openapi.e2e-spec.ts` checks the real responses against these schemas.
 */
export const ApiOperation = (summary: string, responses: ApiOperationDoc['responses'], description?: string) =>
  SetMetadata<string, ApiOperationDoc>(API_OPERATION, { summary, responses, ...(description ? { description } : {}) });

/** The responses of a `PUT` that creates (`201`) or replaces (`200`) the resource at its path. */
export const createdOrReplaced = (schema: JsonSchema): ApiOperationDoc['responses'] => ({
  200: { description: 'Replaced', schema },
  201: { description: 'Created', schema },
});

/** `config.openapi` of a plain Fastify route (not a Nest controller), e.g. the schedule endpoints. */
export interface FastifyRouteDoc extends ApiOperationDoc {
  operationId: string;
  tag: string;
  /** JSON body schema (the one the route itself checks with). */
  requestBody?: JsonSchema;
  /** `true` when the route needs no API key. */
  public: boolean;
  /** Which rate limit sends `RateLimit-*` on this route, if any (the schedule endpoints have their own). */
  rateLimit?: 'api' | 'schedules';
}

export const API_SERVER_CHECKS = 'svc:openapi:server-checks';

/**
 * Inputs of a handler that the server checks beyond what a schema can say (state it reads, such as
 * a signed token or a sign-in cookie), by input path → the rule. They join the DTOs' own
 * `x-server-check`s in the operation's description and `x-server-checks`.
 */
export const ServerChecks = (checks: Record<string, string>) => SetMetadata(API_SERVER_CHECKS, checks);
