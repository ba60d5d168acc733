/**
 * The walls of the `temporal_workflow` sink: which namespaces, task queues, workflow types and ids
 * a job may name, and how an execution's outcome and identity read.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import type { AppConfig } from '@svc/common';
import { renderTemplate, type TemplateContext } from '../templating';
import type {
  ServiceWorkflows,
  SinkServices,
  SinkValidateContext,
  SinkWorkspace,
  StartedWorkflowRef,
} from './sink-kind';

export interface TemporalWorkflowSinkConfig {
  workflow_type: string;
  task_queue: string;
  /** Default: the service's namespace. */
  namespace?: string | null;
  /** The workflow's arguments: a JSON array is the argument list, anything else the one argument. */
  args?: unknown;
  /** Template of the workflow id; default `svc-{{workspace.id}}-{{run.id}}`. */
  workflow_id?: string | null;
  /** `started` (default): the attempt succeeds once the workflow runs; `completed`: with its outcome. */
  wait?: 'started' | 'completed' | null;
  /** The workflow's execution timeout (`30s`, `1h`); default none. */
  timeout?: string | null;
  /** Search attributes to set, by name; checked against the namespace's. */
  search_attributes?: Record<string, string | number | boolean | string[]> | null;
  /** Memo fields to set beside the service's own `svc_*` ones (which no job may set). */
  memo?: Record<string, unknown> | null;
}

/** Jobs stored with the earlier `svc-{{run.id}}` keep it (it still works). */
export const DEFAULT_SINK_WORKFLOW_ID = 'svc-{{workspace.id}}-{{run.id}}';
/**
 * Who started an execution, as search attributes (set where the namespace registers them as
 * Keyword or Text; the memo carries the same always): no job may set these itself.
 */
export const SINK_IDENTITY_ATTRIBUTES = ['SvcWorkspaceId', 'SvcJobId', 'SvcRunId'] as const;
export const IDENTITY_ATTRIBUTES_TTL_MS = 5 * 60_000;
export const MAX_RESULT_BYTES = 64 * 1024;
/** Temporal's limits for names (task queue, workflow type), and the grammar this service accepts. */
export const TASK_QUEUE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$';
/** A task-queue pattern of an allowlist: a task-queue name in which `*` matches any run of characters. */
export const TASK_QUEUE_GLOB_PATTERN = '^[A-Za-z0-9*][A-Za-z0-9._:/*-]{0,199}$';
export const DURATION_PATTERN = '^([0-9]+(d|h|m|s|ms))+$';
export const TEXT_TYPES = new Set([1, 2]); // TEXT, KEYWORD
export const INDEXED_TYPE_NAMES: Record<number, string> = {
  1: 'Text',
  2: 'Keyword',
  3: 'Int',
  4: 'Double',
  5: 'Bool',
  6: 'Datetime',
  7: 'KeywordList',
};

/** The namespaces jobs may start workflows in: the service's own and the configured ones. */
export function allowedNamespaces(config: AppConfig): string[] {
  return [...new Set([config.temporal.namespace, ...config.sinks.temporal_workflow.namespaces])];
}

/** A task-queue pattern match: `*` matches any run of characters, everything else itself. */
export function taskQueueMatches(queue: string, pattern: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(queue);
}

/**
 * Why a job may not target `queue` in `namespace`, or null: the service's own queues (and any
 * `<temporal.task_queue>-…` it may add) never; then the server's allowlist for the namespace, then
 * the workspace's narrowing (a queue must pass both).
 */
export function taskQueueRefusal(
  queue: string,
  namespace: string,
  services: Pick<SinkServices, 'config' | 'serviceWorkflows'>,
  workspace?: SinkWorkspace | null,
): string | null {
  const own = services.config.temporal.task_queue;
  if (services.serviceWorkflows.taskQueues.includes(queue) || queue.startsWith(`${own}-`)) {
    return `task queue "${queue}" belongs to the service itself; a job may not use it`;
  }
  const server = services.config.sinks.temporal_workflow.task_queues[namespace];
  if (server && !server.some((pattern) => taskQueueMatches(queue, pattern))) {
    return `task queue "${queue}" is not allowed in namespace "${namespace}" on this server; allowed: ${server.join(', ') || 'none'}`;
  }
  const narrowed = workspace?.temporalWorkflowTaskQueues;
  if (narrowed && !narrowed.some((pattern) => taskQueueMatches(queue, pattern))) {
    return `task queue "${queue}" is not allowed in this workspace; allowed: ${narrowed.join(', ') || 'none'}`;
  }
  return null;
}

/** Why a job may not start `type`, or null: the service's own workflow types never. */
export function workflowTypeRefusal(type: string, service: ServiceWorkflows): string | null {
  return service.workflowTypes.includes(type)
    ? `workflow type "${type}" belongs to the service itself; a job may not start it`
    : null;
}

/**
 * Why a rendered workflow id may not be used, or null: ids of the service's own scheme (`job_…`,
 * `run_…`, alert and verification ids) never.
 */
export function workflowIdRefusal(workflowId: string, service: ServiceWorkflows): string | null {
  const prefix = service.workflowIdPrefixes.find((p) => workflowId.startsWith(p));
  return prefix ? `workflow id "${workflowId}" could collide with the service's own workflow ids (${prefix}…)` : null;
}

/**
 * Whether a rendered workflow id is of the default scheme of another workspace (`svc-ws_…-…`):
 * such an id names that workspace's executions, never this one's.
 */
export function isOtherWorkspaceId(workflowId: string, workspaceId: string): boolean {
  return workflowId.startsWith('svc-ws_') && !workflowId.startsWith(`svc-${workspaceId}-`);
}

/**
 * Whether the execution's memo says this job of this workspace started it. Executions started
 * before the workspace-scoped ids carry no `svc_workspace_id`: the job id (unique across workspaces) decides.
 */
export function startedBy(memo: Record<string, unknown> | undefined, workspaceId: string, jobId: string): boolean {
  if (!memo || memo.svc_job_id !== jobId) {
    return false;
  }
  return memo.svc_workspace_id === undefined || memo.svc_workspace_id === workspaceId;
}

/** The Temporal Web UI page of a workflow execution, or null without `temporal.ui_url`. */
export function workflowUiUrl(uiUrl: string | null | undefined, ref: StartedWorkflowRef): string | null {
  if (!uiUrl) {
    return null;
  }
  const base = uiUrl.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(ref.namespace)}/workflows/${encodeURIComponent(ref.workflow_id)}/${encodeURIComponent(ref.run_id)}/history`;
}

/** Every string inside a JSON value with its field path (`args.0.name`). */
export function stringLeaves(value: unknown, path: string, out: Record<string, string>): Record<string, string> {
  if (typeof value === 'string') {
    out[path] = value;
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => stringLeaves(item, `${path}.${i}`, out));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      stringLeaves(item, `${path}.${key}`, out);
    }
  }
  return out;
}

export function renderJson(value: unknown, ctx: TemplateContext): unknown {
  if (typeof value === 'string') {
    return renderTemplate(value, ctx);
  }
  if (Array.isArray(value)) {
    return value.map((item) => renderJson(item, ctx));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderJson(item, ctx)]));
  }
  return value;
}

export function truncate(text: string): string {
  return Buffer.byteLength(text, 'utf8') <= MAX_RESULT_BYTES
    ? text
    : Buffer.from(text, 'utf8').subarray(0, MAX_RESULT_BYTES).toString('utf8');
}

/** A failed, timed-out, terminated or cancelled workflow in words (its own failure message). */
export function workflowFailureMessage(err: WorkflowFailedError): string {
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) {
    return 'workflow timed out';
  }
  if (cause instanceof TerminatedFailure) {
    return `workflow terminated${cause.message && cause.message !== 'Workflow execution terminated' ? `: ${cause.message}` : ''}`;
  }
  if (cause instanceof CancelledFailure) {
    return 'workflow cancelled';
  }
  if (cause instanceof ApplicationFailure) {
    return `workflow failed: ${cause.message}`;
  }
  return `workflow failed: ${cause?.message ?? err.message}`;
}

/**
 * The workflow id template rendered with stand-in values (a job's real ids have the same
 * prefixes): what it could collide with is known before any run. A template that does not render
 * (an unknown variable) is reported by the template check instead.
 */
export function sampleWorkflowIdRefusal(template: string, ctx: SinkValidateContext): string | null {
  const workspaceId = ctx.workspace?.id ?? 'ws_00000000000000000000000000';
  let rendered: string;
  try {
    rendered = renderTemplate(template, {
      run: { id: 'run_00000000000000000000000000', scheduledAt: 0, attempt: 0 },
      job: { id: 'job_00000000000000000000000000', name: 'job' },
      workspace: { id: workspaceId },
      firedAt: 0,
      secrets: {},
    });
  } catch {
    return null;
  }
  return (
    workflowIdRefusal(rendered, ctx.services.serviceWorkflows) ??
    (isOtherWorkspaceId(rendered, workspaceId)
      ? `workflow id "${rendered}" names another workspace's executions (svc-ws_…)`
      : null)
  );
}

/** gRPC codes that no retry can cure: the request itself is wrong for this server. */
export const FATAL_GRPC_CODES = new Set([3, 5, 7, 9, 12]); // INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, FAILED_PRECONDITION, UNIMPLEMENTED
