/**
 * Trace context on the Temporal client calls of the API and the worker (docs/operations.md →
 * Traces): a start or signal made while a span is active (an API request, an activity) gets a
 * span of its own and carries the context in the workflow's headers, so the workflow's spans
 * join that trace. Calls made outside any trace (the reconciler's periodic upserts, the alert
 * sweep) stay untraced rather than each opening a trace of one span.
 */
import { context, trace } from '@opentelemetry/api';
import type {
  ClientInterceptors,
  DescribeWorkflowExecutionResponse,
  Next,
  RequestCancelWorkflowExecutionResponse,
  TerminateWorkflowExecutionResponse,
  WorkflowCancelInput,
  WorkflowClientInterceptor,
  WorkflowDescribeInput,
  WorkflowQueryInput,
  WorkflowSignalInput,
  WorkflowSignalWithStartInput,
  WorkflowStartInput,
  WorkflowStartOutput,
  WorkflowStartUpdateInput,
  WorkflowStartUpdateOutput,
  WorkflowStartUpdateWithStartInput,
  WorkflowStartUpdateWithStartOutput,
  WorkflowTerminateInput,
} from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

const inTrace = (): boolean => trace.getSpan(context.active()) !== undefined;

/** The SDK's client interceptor, applied only within an active trace. */
class WithinTraceClientInterceptor extends OpenTelemetryWorkflowClientInterceptor {
  override start(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'start'>): Promise<string> {
    return inTrace() ? super.start(input, next) : next(input);
  }
  override startWithDetails(
    input: WorkflowStartInput,
    next: Next<WorkflowClientInterceptor, 'startWithDetails'>,
  ): Promise<WorkflowStartOutput> {
    return inTrace() ? super.startWithDetails(input, next) : next(input);
  }
  override signal(input: WorkflowSignalInput, next: Next<WorkflowClientInterceptor, 'signal'>): Promise<void> {
    return inTrace() ? super.signal(input, next) : next(input);
  }
  override signalWithStart(
    input: WorkflowSignalWithStartInput,
    next: Next<WorkflowClientInterceptor, 'signalWithStart'>,
  ): Promise<string> {
    return inTrace() ? super.signalWithStart(input, next) : next(input);
  }
  override startUpdate(
    input: WorkflowStartUpdateInput,
    next: Next<WorkflowClientInterceptor, 'startUpdate'>,
  ): Promise<WorkflowStartUpdateOutput> {
    return inTrace() ? super.startUpdate(input, next) : next(input);
  }
  override startUpdateWithStart(
    input: WorkflowStartUpdateWithStartInput,
    next: Next<WorkflowClientInterceptor, 'startUpdateWithStart'>,
  ): Promise<WorkflowStartUpdateWithStartOutput> {
    return inTrace() ? super.startUpdateWithStart(input, next) : next(input);
  }
  override query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    return inTrace() ? super.query(input, next) : next(input);
  }
  override terminate(
    input: WorkflowTerminateInput,
    next: Next<WorkflowClientInterceptor, 'terminate'>,
  ): Promise<TerminateWorkflowExecutionResponse> {
    return inTrace() ? super.terminate(input, next) : next(input);
  }
  override cancel(
    input: WorkflowCancelInput,
    next: Next<WorkflowClientInterceptor, 'cancel'>,
  ): Promise<RequestCancelWorkflowExecutionResponse> {
    return inTrace() ? super.cancel(input, next) : next(input);
  }
  override describe(
    input: WorkflowDescribeInput,
    next: Next<WorkflowClientInterceptor, 'describe'>,
  ): Promise<DescribeWorkflowExecutionResponse> {
    return inTrace() ? super.describe(input, next) : next(input);
  }
}

/** Client interceptors for `new Client({ interceptors })`: none with tracing off. */
export function tracingClientInterceptors(enabled: boolean): ClientInterceptors | undefined {
  return enabled ? { workflow: [new WithinTraceClientInterceptor()] } : undefined;
}
