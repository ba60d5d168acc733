/**
 * The router's `maxParamLength` (Fastify's default is 100): a longer path parameter is refused
 * before any route runs (`400` in the envelope, app.ts `frameworkErrors`), and the OpenAPI document
 * states it as every path parameter's `maxLength`. 128 so that a job key (1–128 characters)
 * fits in `/jobs/by-key/{key}`.
 */
export const MAX_PARAM_LENGTH = 128;
