/**
 * W3C Trace Context on outbound webhook requests (docs/operations.md → Traces). Only the
 * OpenTelemetry API: the process decides whether an SDK runs. When a trace is active (the attempt
 * activity's span, or the API request of a sink test), the request gets a CLIENT span and carries
 * its `traceparent` (and `tracestate` when the trace has one). Without an active trace nothing
 * happens: no span, no header. The headers are reserved (`isReservedHeader`), so a job's custom
 * headers can never set or override them.
 */
import {
  context,
  isSpanContextValid,
  type Span,
  SpanKind,
  type SpanContext,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

const TRACER_NAME = '@svc/delivery';

/** `traceparent` (version 00) and `tracestate` of a span context; empty for an invalid one. */
export function traceContextHeaders(spanContext: SpanContext): Record<string, string> {
  if (!isSpanContextValid(spanContext)) {
    return {};
  }
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const headers: Record<string, string> = {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
  };
  const state = spanContext.traceState?.serialize();
  if (state) {
    headers.tracestate = state;
  }
  return headers;
}

/** What the span records of the request's outcome. */
export interface TracedResponse {
  statusCode: number | null;
  /** Set when no usable response came back (network error, timeout, blocked destination …). */
  errorKind?: string | null;
}

/**
 * Runs `send` in a CLIENT span when a trace is active, passing the trace headers to add to the
 * request; otherwise runs it with none. `url` is recorded without its query and credentials
 * (either may hold a secret); with `secretPath` (a Slack incoming-webhook URL, whose path is the
 * credential) only its first path segment is kept: `https://hooks.slack.com/services/REDACTED`.
 */
export async function withClientSpan<T extends TracedResponse>(
  request: { method: string; url: string; secretPath?: boolean },
  send: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  const parent = trace.getSpanContext(context.active());
  if (!parent || !isSpanContextValid(parent)) {
    return send({});
  }
  const target = safeUrl(request.url, request.secretPath ?? false);
  const span = trace.getTracer(TRACER_NAME).startSpan(request.method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': request.method,
      ...(target
        ? {
            'url.full': target.full,
            'server.address': target.host,
            ...(target.port ? { 'server.port': target.port } : {}),
          }
        : {}),
    },
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), () =>
      send(traceContextHeaders(span.spanContext())),
    );
    recordResponse(span, result);
    return result;
  } catch (err) {
    span.setAttribute('error.type', err instanceof Error ? err.name : 'Error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

function recordResponse(span: Span, result: TracedResponse): void {
  if (result.statusCode !== null) {
    span.setAttribute('http.response.status_code', result.statusCode);
  }
  if (result.errorKind) {
    span.setAttribute('error.type', result.errorKind);
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else if (result.statusCode !== null && result.statusCode >= 400) {
    span.setAttribute('error.type', String(result.statusCode));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

function safeUrl(url: string, secretPath: boolean): { full: string; host: string; port: number | null } | null {
  try {
    const parsed = new URL(url);
    const defaultPort = parsed.protocol === 'https:' ? 443 : 80;
    const first = parsed.pathname.split('/').filter(Boolean)[0];
    const path = secretPath ? `/${first ? `${first}/` : ''}REDACTED` : parsed.pathname;
    return {
      full: `${parsed.protocol}//${parsed.host}${path}`,
      host: parsed.hostname.replace(/^\[|\]$/g, ''),
      port: parsed.port ? Number(parsed.port) : defaultPort,
    };
  } catch {
    return null;
  }
}
