import type { SinkAttemptResult } from '@svc/delivery';

/**
 * The response of `POST /jobs/{id}/test` and `POST /jobs/test` (spec: Jobs → test): the spec's
 * `{outcome, status_code, duration_ms, response_body, request_summary}`, plus `error` (why an
 * attempt without a usable response failed, as an attempt records it; null on success).
 * `response_body` is returned whatever the outcome (at most 64 KiB; stored nowhere).
 */
export interface SinkTestResponse {
  outcome: SinkAttemptResult['outcome'];
  status_code: number | null;
  duration_ms: number;
  response_body: string | null;
  request_summary: string;
  error: string | null;
}

export function toSinkTestResponse(result: SinkAttemptResult): SinkTestResponse {
  return {
    outcome: result.outcome,
    status_code: result.statusCode,
    duration_ms: Math.round(result.durationMs),
    response_body: result.body,
    request_summary: result.requestSummary,
    error: result.error,
  };
}
