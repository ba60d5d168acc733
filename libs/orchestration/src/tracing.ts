/**
 * Trace context on the Temporal client calls of the API and the worker (docs/operations.md →
 * Traces): a start or signal made while a span is active (an API request, an activity) gets a
 * span of its own and carries the context in the workflow's headers, so the workflow's spans
 * join that trace. Calls made outside any trace (the reconciler's periodic upserts, the alert
 * sweep) stay untraced rather than each opening a trace of one span.
 */
import { context, trace } from '@opentelemetry/api';
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

const inTrace = (): boolean => trace.getSpan(context.active()) !== undefined;

/** Every client call the SDK's interceptor traces. */
const TRACED_CALLS = [
  'start',
  'startWithDetails',
  'signal',
  'signalWithStart',
  'startUpdate',
  'startUpdateWithStart',
  'query',
  'terminate',
  'cancel',
  'describe',
] as const satisfies ReadonlyArray<keyof OpenTelemetryWorkflowClientInterceptor>;

type InterceptedCall = (input: unknown, next: (input: unknown) => Promise<unknown>) => Promise<unknown>;

/** The SDK's client interceptor, applied only within an active trace. */
function withinTraceClientInterceptor(): WorkflowClientInterceptor {
  const sdk = new OpenTelemetryWorkflowClientInterceptor();
  const interceptor: Record<string, InterceptedCall> = {};
  for (const call of TRACED_CALLS) {
    const traced = (sdk[call] as InterceptedCall).bind(sdk);
    interceptor[call] = (input, next) => (inTrace() ? traced(input, next) : next(input));
  }
  return interceptor as WorkflowClientInterceptor;
}

/** Client interceptors for `new Client({ interceptors })`: none with tracing off. */
export function tracingClientInterceptors(enabled: boolean): ClientInterceptors | undefined {
  return enabled ? { workflow: [withinTraceClientInterceptor()] } : undefined;
}
