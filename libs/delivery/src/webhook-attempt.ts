/**
 * One webhook attempt end to end: templates → body → signed headers → guarded HTTP request →
 * classification. This is what the worker's delivery activity and the API's sink test
 * (`POST /jobs/{id}/test`, spec: Events → Sink test) call, so both send the same request.
 */
import type { AttemptOutcome } from '@svc/workflow-contract/run-rules';
import {
  DEFAULT_RETRY_ON,
  DEFAULT_SUCCESS_CODES,
  RetryOnEntry,
  SuccessCodes,
  classifyResponse,
  getRetryAfterMs,
} from './classify';
import { HttpDeliveryResult, HttpMethod, Resolver, deliverHttp, summarizeRequest } from './http-client';
import type { NetworkRules } from './network-rules';
import { buildWebhookHeaders, serializeStandardPayload } from './payload';
import { isValidHeaderValue } from './headers';
import { TemplateContext, TemplateRenderError, renderTemplate } from './templating';
import type { SinkRun } from './sinks/sink-kind';
import { withClientSpan } from './tracing';

/** `sink.config` of a webhook job, as stored (spec: Sink: webhook configuration). */
export interface WebhookSinkConfig {
  url: string;
  /** Default `POST`. */
  method?: Exclude<HttpMethod, 'HEAD'>;
  /** Custom headers; values may hold templates. */
  headers?: Record<string, string>;
  /** Body template; null/undefined sends the standard payload. */
  body?: string | null;
  /** Default `2xx`. */
  success_codes?: SuccessCodes;
  /** Default `[5xx, 408, 429, network, timeout]`. */
  retry_on?: RetryOnEntry[];
  /** Default false. */
  follow_redirects?: boolean;
  /** The destination its attempts count against; default the URL's `host:port`. */
  destination?: string | null;
}

export interface WebhookAttemptInput {
  config: WebhookSinkConfig;
  run: SinkRun;
  job: { id: string; name: string };
  /** The job's workspace (`{{workspace.id}}`). */
  workspace?: { id: string };
  /** Signing secrets in effect (both during the 24 h rotation overlap). */
  signingSecrets: readonly string[];
  /** Decrypted workspace secrets for `{{secret.NAME}}`. */
  secrets: TemplateContext['secrets'];
  /** Wall-clock time of sending, epoch ms: `fired_at` and `webhook-timestamp`. */
  nowMs: number;
  /** Per-attempt timeout (`job.timeout`). */
  timeoutMs: number;
  /** Aborts the request in flight (the run cancelled, its job deleted, `cancel_previous`). */
  signal?: AbortSignal;
  rules: NetworkRules;
  /** `User-Agent: <serviceName>/<version>`. */
  serviceName: string;
  version: string;
  maxResponseBytes?: number;
  /** A sink test: the request carries `Svc-Test: true`. */
  test?: boolean;
  resolve?: Resolver;
  clock?: () => number;
}

export interface WebhookAttemptResult extends HttpDeliveryResult {
  outcome: AttemptOutcome;
  /** Retry-After of a 429/503 in ms (uncapped; `computeRetryDelayMs` caps it), else null. */
  retryAfterMs: number | null;
}

/**
 * Build, sign, send and classify one attempt. Never throws: a template that cannot be rendered
 * (e.g. a secret deleted after the job was created) or a header value that holds a line break
 * once rendered is a fatal `invalid_request` with nothing sent; the error names the field and the
 * reference, never a value. GET requests carry no body (the signature then covers the empty body); every other
 * method sends the rendered body or the standard payload.
 */
export async function deliverWebhookAttempt(input: WebhookAttemptInput): Promise<WebhookAttemptResult> {
  const { config, run, job } = input;
  const method = config.method ?? 'POST';
  const ctx: TemplateContext = {
    run,
    job,
    firedAt: input.nowMs,
    secrets: input.secrets,
    ...(input.workspace ? { workspace: input.workspace } : {}),
  };
  const policy = {
    successCodes: config.success_codes ?? DEFAULT_SUCCESS_CODES,
    retryOn: config.retry_on ?? DEFAULT_RETRY_ON,
  };

  let body: string;
  let customHeaders: Record<string, string>;
  try {
    customHeaders = renderCustomHeaders(config.headers, ctx);
    body =
      config.body === undefined || config.body === null
        ? serializeStandardPayload({
            runId: run.id,
            jobId: job.id,
            jobName: job.name,
            scheduledAt: run.scheduledAt,
            plannedAt: run.plannedAt,
            firedAt: input.nowMs,
            attempt: run.attempt,
          })
        : renderField('body', config.body, ctx);
  } catch (err) {
    const message = err instanceof TemplateRenderError ? err.message : 'template rendering failed';
    return {
      outcome: 'fatal',
      retryAfterMs: null,
      statusCode: null,
      headers: {},
      body: null,
      bodyTruncated: false,
      durationMs: 0,
      error: message,
      errorKind: 'invalid_request',
      requestSummary: summarizeRequest(method, config.url, undefined),
      redirects: 0,
      finalUrl: config.url,
    };
  }
  const sentBody = method === 'GET' ? '' : body;

  const headers = buildWebhookHeaders({
    runId: run.id,
    jobId: job.id,
    scheduledAt: run.scheduledAt,
    plannedAt: run.plannedAt,
    attempt: run.attempt,
    timestampSec: Math.floor(input.nowMs / 1000),
    body: sentBody,
    secrets: input.signingSecrets,
    serviceName: input.serviceName,
    version: input.version,
    customHeaders,
    test: input.test,
  });
  if (method === 'GET') {
    delete headers['Content-Type'];
  }

  // Within a trace, `traceparent` of the request's own span (reserved: never a custom header's).
  const result = await withClientSpan({ method, url: config.url }, (traceHeaders) =>
    deliverHttp({
      url: config.url,
      method,
      headers: { ...headers, ...traceHeaders },
      body: method === 'GET' ? undefined : sentBody,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      followRedirects: config.follow_redirects ?? false,
      rules: input.rules,
      maxResponseBytes: input.maxResponseBytes,
      resolve: input.resolve,
      clock: input.clock,
    }),
  );
  return {
    ...result,
    outcome: classifyResponse(result, policy),
    retryAfterMs: getRetryAfterMs(result, input.nowMs),
  };
}

/** Renders one field; a failure names the field (`header "X-Token": unknown secret "GONE"`). */
function renderField(field: string, text: string, ctx: TemplateContext): string {
  try {
    return renderTemplate(text, ctx);
  } catch (err) {
    if (err instanceof TemplateRenderError) {
      throw new TemplateRenderError(`${field}: ${err.message}`, err.reference);
    }
    throw err;
  }
}

/**
 * Custom header values with their templates rendered. A rendered value must still be one header
 * line: a CR, LF or other control character (from a secret's value or the job's name) would
 * split the request (header injection), so the attempt fails instead. The message names the
 * header only: the value may be a secret.
 */
function renderCustomHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  ctx: TemplateContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers ?? {})) {
    const value = renderField(`header "${name}"`, template, ctx);
    if (!isValidHeaderValue(value)) {
      throw new TemplateRenderError(
        `header "${name}": the rendered value contains a line break or another control character`,
        name,
      );
    }
    out[name] = value;
  }
  return out;
}
