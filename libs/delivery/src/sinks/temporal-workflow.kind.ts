/**
 * The `temporal_workflow` sink (docs/extending.md → temporal_workflow): each attempt starts (or
 * attaches to) one execution of the team's own workflow and, with `wait: completed`, ends with
 * its outcome.
 *
 * One execution per attempt, even across crashes: the workflow id defaults to one derived from
 * the run (`svc-{{run.id}}`), started with conflict policy USE_EXISTING (an attempt retried after
 * a worker died mid-attempt attaches to the execution already running) and reuse policy
 * ALLOW_DUPLICATE_FAILED_ONLY (a retry after a failed, timed-out, terminated or cancelled
 * execution starts a fresh one; after a completed one it attaches to that result instead).
 */
import {
  type Client,
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  ApplicationFailure,
  CancelledFailure,
  type SearchAttributes,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { type AppConfig, parseDuration, UnavailableError } from '@svc/common';
import { performance } from 'node:perf_hooks';
import { findTemplateReferences, renderTemplate, type TemplateContext } from '../templating';
import type {
  SinkAttemptResult,
  SinkFieldErrors,
  SinkKind,
  SinkSendContext,
  SinkValidateContext,
  StartedWorkflowRef,
} from './sink-kind';

export interface TemporalWorkflowSinkConfig {
  workflow_type: string;
  task_queue: string;
  /** Default: the service's namespace. */
  namespace?: string | null;
  /** The workflow's arguments: a JSON array is the argument list, anything else the one argument. */
  args?: unknown;
  /** Template of the workflow id; default `svc-{{run.id}}`. */
  workflow_id?: string | null;
  /** `started` (default): the attempt succeeds once the workflow runs; `completed`: with its outcome. */
  wait?: 'started' | 'completed' | null;
  /** The workflow's execution timeout (`30s`, `1h`); default none. */
  timeout?: string | null;
  /** Search attributes to set, by name; checked against the namespace's. */
  search_attributes?: Record<string, string | number | boolean | string[]> | null;
}

export const DEFAULT_SINK_WORKFLOW_ID = 'svc-{{run.id}}';
const MAX_RESULT_BYTES = 64 * 1024;
/** Temporal's limits for names (task queue, workflow type), and the grammar this service accepts. */
export const TASK_QUEUE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$';
const DURATION_PATTERN = '^([0-9]+(d|h|m|s|ms))+$';
const TEXT_TYPES = new Set([1, 2]); // TEXT, KEYWORD
const INDEXED_TYPE_NAMES: Record<number, string> = {
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

/** The Temporal Web UI page of a workflow execution, or null without `temporal.ui_url`. */
export function workflowUiUrl(uiUrl: string | null | undefined, ref: StartedWorkflowRef): string | null {
  if (!uiUrl) {
    return null;
  }
  const base = uiUrl.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(ref.namespace)}/workflows/${encodeURIComponent(ref.workflow_id)}/${encodeURIComponent(ref.run_id)}/history`;
}

/** Every string inside a JSON value with its field path (`args.0.name`). */
function stringLeaves(value: unknown, path: string, out: Record<string, string>): Record<string, string> {
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

function renderJson(value: unknown, ctx: TemplateContext): unknown {
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

function truncate(text: string): string {
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

/** gRPC codes that no retry can cure: the request itself is wrong for this server. */
const FATAL_GRPC_CODES = new Set([3, 5, 7, 9, 12]); // INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, FAILED_PRECONDITION, UNIMPLEMENTED

export class TemporalWorkflowSinkKind implements SinkKind<TemporalWorkflowSinkConfig> {
  readonly kind = 'temporal_workflow';
  readonly label = 'Temporal workflow';
  readonly description =
    'Starts a workflow of your own on the Temporal server (`namespace`: the service’s unless the server allows ' +
    'others). `args` and `workflow_id` take the `{{…}}` template variables (`args` also `{{secret.NAME}}`). The ' +
    'default workflow id is derived from the run, so an attempt retried after a crash attaches to the execution ' +
    'already started. `wait: started` succeeds once it runs; `wait: completed` ends with its outcome (at most the ' +
    'job’s timeout).';
  readonly configSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['workflow_type', 'task_queue'],
    properties: {
      workflow_type: { type: 'string', minLength: 1, maxLength: 255, pattern: '^\\S(.*\\S)?$' },
      task_queue: { type: 'string', pattern: TASK_QUEUE_PATTERN, description: 'A task queue your workers poll' },
      namespace: {
        anyOf: [{ type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$' }, { type: 'null' }],
        description: 'Default the service’s; others only where `sinks.temporal_workflow.namespaces` lists them',
      },
      args: {
        description:
          'The workflow’s input: a JSON array is the argument list, any other value the single argument; strings may hold templates',
      },
      workflow_id: {
        anyOf: [{ type: 'string', minLength: 1, maxLength: 1000 }, { type: 'null' }],
        description: `Workflow id template (variables only, no secrets); default \`${DEFAULT_SINK_WORKFLOW_ID}\``,
      },
      wait: { anyOf: [{ enum: ['started', 'completed'] }, { type: 'null' }], description: 'Default `started`' },
      timeout: {
        anyOf: [{ type: 'string', pattern: DURATION_PATTERN }, { type: 'null' }],
        description: 'The workflow’s execution timeout, e.g. `30s`; default none',
      },
      search_attributes: {
        anyOf: [
          {
            type: 'object',
            maxProperties: 20,
            additionalProperties: {
              anyOf: [
                { type: 'string' },
                { type: 'number' },
                { type: 'boolean' },
                { type: 'array', items: { type: 'string' } },
              ],
            },
          },
          { type: 'null' },
        ],
        description: 'Search attributes to set, by name; each must exist in the namespace with a matching type',
      },
    },
  };
  readonly formFields = [
    { name: 'workflow_type', label: 'Workflow type', type: 'text', required: true, placeholder: 'NightlyReport' },
    { name: 'task_queue', label: 'Task queue', type: 'text', required: true, placeholder: 'reports' },
    { name: 'namespace', label: 'Namespace', type: 'text', help: 'Empty: the service’s namespace' },
    { name: 'args', label: 'Arguments (JSON)', type: 'json', help: 'A JSON array is the argument list' },
    { name: 'workflow_id', label: 'Workflow id template', type: 'text', placeholder: DEFAULT_SINK_WORKFLOW_ID },
    { name: 'wait', label: 'Wait for', type: 'select', options: ['started', 'completed'] },
    { name: 'timeout', label: 'Workflow timeout', type: 'text', placeholder: '10m' },
    { name: 'search_attributes', label: 'Search attributes (JSON)', type: 'json' },
  ] as const;

  disabledReason(config: AppConfig): string | null {
    return config.sinks.temporal_workflow.enabled
      ? null
      : 'the temporal_workflow sink is disabled on this server (sinks.temporal_workflow.enabled)';
  }

  async normalize(
    config: TemporalWorkflowSinkConfig,
    ctx: SinkValidateContext,
  ): Promise<{ config: TemporalWorkflowSinkConfig } | { fields: SinkFieldErrors }> {
    const fields: SinkFieldErrors = {};
    const namespace = config.namespace ?? ctx.config.temporal.namespace;
    const allowed = allowedNamespaces(ctx.config);
    if (!allowed.includes(namespace)) {
      fields['sink.config.namespace'] =
        `namespace "${namespace}" is not allowed on this server; allowed: ${allowed.join(', ')}`;
    }
    if (typeof config.workflow_id === 'string') {
      const secret = findTemplateReferences(config.workflow_id).find((ref) => ref.kind === 'secret');
      if (secret) {
        fields['sink.config.workflow_id'] = `secrets are not allowed in the workflow id (${secret.raw})`;
      }
    }
    if (typeof config.timeout === 'string') {
      const ms = parseDuration(config.timeout);
      if (ms === null || ms < 1_000) {
        fields['sink.config.timeout'] = 'must be a duration of at least 1s';
      }
    }
    if (config.args !== undefined && Buffer.byteLength(JSON.stringify(config.args) ?? '', 'utf8') > 256 * 1024) {
      fields['sink.config.args'] = 'must be at most 256 KiB as JSON';
    }
    if (!fields['sink.config.namespace'] && config.search_attributes && Object.keys(config.search_attributes).length) {
      Object.assign(fields, await this.checkSearchAttributes(config.search_attributes, namespace, ctx));
    }
    if (Object.keys(fields).length > 0) {
      return { fields };
    }
    return {
      config: {
        workflow_type: config.workflow_type,
        task_queue: config.task_queue,
        namespace,
        args: config.args ?? [],
        workflow_id: config.workflow_id ?? DEFAULT_SINK_WORKFLOW_ID,
        wait: config.wait ?? 'started',
        ...(config.timeout ? { timeout: config.timeout } : {}),
        ...(config.search_attributes ? { search_attributes: config.search_attributes } : {}),
      },
    };
  }

  /** Each attribute must exist in the namespace and its value fit the attribute's type. */
  private async checkSearchAttributes(
    attributes: NonNullable<TemporalWorkflowSinkConfig['search_attributes']>,
    namespace: string,
    ctx: SinkValidateContext,
  ): Promise<SinkFieldErrors> {
    const client = ctx.services.temporal(namespace);
    let listed: Awaited<ReturnType<typeof client.connection.operatorService.listSearchAttributes>>;
    try {
      listed = await client.connection.operatorService.listSearchAttributes({ namespace });
    } catch {
      // The job cannot be checked now: `503 unavailable`, retry later (never a 500).
      throw new UnavailableError(`cannot read the search attributes of namespace "${namespace}" now; retry`);
    }
    const known: Record<string, number> = {
      ...(listed.systemAttributes as Record<string, number>),
      ...(listed.customAttributes as Record<string, number>),
    };
    const fields: SinkFieldErrors = {};
    for (const [name, value] of Object.entries(attributes)) {
      const path = `sink.config.search_attributes.${name}`;
      const type = known[name];
      if (type === undefined) {
        fields[path] = `namespace "${namespace}" has no search attribute "${name}"`;
        continue;
      }
      if (listed.systemAttributes && name in listed.systemAttributes) {
        fields[path] = `"${name}" is a system search attribute and cannot be set`;
        continue;
      }
      const fits =
        (TEXT_TYPES.has(type) && typeof value === 'string') ||
        (type === 3 && Number.isInteger(value)) ||
        (type === 4 && typeof value === 'number') ||
        (type === 5 && typeof value === 'boolean') ||
        (type === 6 && typeof value === 'string' && !Number.isNaN(Date.parse(value))) ||
        (type === 7 && Array.isArray(value));
      if (!fits) {
        fields[path] = `must be a value of the attribute's type ${INDEXED_TYPE_NAMES[type] ?? String(type)}`;
      }
    }
    return fields;
  }

  templateFields(config: TemporalWorkflowSinkConfig): Record<string, string> {
    const texts = config.args === undefined ? {} : stringLeaves(config.args, 'sink.config.args', {});
    if (typeof config.workflow_id === 'string') {
      texts['sink.config.workflow_id'] = config.workflow_id;
    }
    return texts;
  }

  secretNames(config: TemporalWorkflowSinkConfig): string[] {
    const names = new Set<string>();
    for (const text of Object.values(this.templateFields(config))) {
      for (const ref of findTemplateReferences(text)) {
        if (ref.kind === 'secret') {
          names.add(ref.name);
        }
      }
    }
    return [...names].sort();
  }

  describe(config: TemporalWorkflowSinkConfig): string {
    return `workflow ${config.workflow_type ?? '?'} on ${config.task_queue ?? '?'}`;
  }

  summarize(config: TemporalWorkflowSinkConfig): string {
    return `start ${config.workflow_type} on ${config.task_queue}${config.namespace ? ` (${config.namespace})` : ''}`;
  }

  async send(config: TemporalWorkflowSinkConfig, ctx: SinkSendContext): Promise<SinkAttemptResult> {
    const started = performance.now();
    const namespace = config.namespace ?? ctx.services.config.temporal.namespace;
    const summary = this.summarize({ ...config, namespace });
    const result = (
      outcome: SinkAttemptResult['outcome'],
      error: string | null,
      extra: Partial<SinkAttemptResult> = {},
    ): SinkAttemptResult => ({
      outcome,
      statusCode: null,
      durationMs: performance.now() - started,
      error,
      requestSummary: summary,
      body: null,
      retryAfterMs: null,
      ...extra,
    });
    if (this.disabledReason(ctx.services.config)) {
      return result('fatal', 'the temporal_workflow sink is disabled on this server');
    }
    if (!allowedNamespaces(ctx.services.config).includes(namespace)) {
      return result('fatal', `namespace "${namespace}" is not allowed on this server`);
    }
    const templateContext: TemplateContext = {
      run: ctx.run,
      job: ctx.job,
      firedAt: ctx.nowMs,
      secrets: ctx.secrets,
    };
    let workflowId: string;
    let args: unknown[];
    try {
      workflowId = renderTemplate(config.workflow_id ?? DEFAULT_SINK_WORKFLOW_ID, templateContext);
      const rendered = renderJson(config.args ?? [], templateContext);
      args = Array.isArray(rendered) ? rendered : [rendered];
    } catch (err) {
      return result('fatal', (err as Error).message);
    }
    const client = ctx.services.temporal(namespace);
    let handle: WorkflowHandle;
    let runId: string;
    try {
      const timeoutMs = config.timeout ? parseDuration(config.timeout) : null;
      const search = Object.entries(config.search_attributes ?? {});
      const startedHandle = await client.workflow.start(config.workflow_type, {
        taskQueue: config.task_queue,
        workflowId,
        args,
        // Who started it and for which attempt: the mark of a sink test, and how an operator finds
        // the run from the workflow.
        memo: {
          svc_run_id: ctx.run.id,
          svc_attempt: ctx.run.attempt,
          svc_job_id: ctx.job.id,
          ...(ctx.test ? { svc_test: true } : {}),
        },
        ...(search.length > 0
          ? {
              // Values were checked against the namespace's attribute types when the job was saved.
              searchAttributes: Object.fromEntries(
                search.map(([k, v]) => [k, Array.isArray(v) ? v : [v]]),
              ) as SearchAttributes,
            }
          : {}),
        ...(timeoutMs ? { workflowExecutionTimeout: timeoutMs } : {}),
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
      handle = startedHandle;
      runId = startedHandle.firstExecutionRunId;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        // This id already completed (an attempt retried after the first one saw the workflow
        // finish but could not record it): its outcome is the attempt's.
        handle = client.workflow.getHandle(workflowId);
        try {
          runId = (await handle.describe()).runId;
        } catch (describeErr) {
          return result(
            'retryable',
            `workflow ${workflowId} exists but cannot be read: ${(describeErr as Error).message}`,
          );
        }
      } else {
        const fatal = isGrpcServiceError(err) && FATAL_GRPC_CODES.has(err.code);
        const message = isGrpcServiceError(err) ? (err.details ?? err.message) : (err as Error).message;
        return result(fatal ? 'fatal' : 'retryable', `workflow not started: ${message}`);
      }
    }
    const startedWorkflow: StartedWorkflowRef = { namespace, workflow_id: workflowId, run_id: runId };
    await ctx.reportStarted?.(startedWorkflow);
    const body = () => JSON.stringify({ workflow_id: workflowId, run_id: runId });
    if ((config.wait ?? 'started') === 'started') {
      return result('success', null, { body: body(), startedWorkflow });
    }
    return this.awaitOutcome(client, startedWorkflow, ctx, (outcome, error, extra) =>
      result(outcome, error, { startedWorkflow, body: body(), ...extra }),
    );
  }

  /** Waits for the execution's end within the job's timeout; a cancelled attempt cancels the workflow. */
  private async awaitOutcome(
    client: Client,
    ref: StartedWorkflowRef,
    ctx: SinkSendContext,
    result: (
      outcome: SinkAttemptResult['outcome'],
      error: string | null,
      extra?: Partial<SinkAttemptResult>,
    ) => SinkAttemptResult,
  ): Promise<SinkAttemptResult> {
    const handle = client.workflow.getHandle(ref.workflow_id, ref.run_id);
    const abort = new AbortController();
    const onCancel = () => abort.abort();
    ctx.signal.addEventListener('abort', onCancel);
    const timer = setTimeout(() => abort.abort(), ctx.timeoutMs);
    try {
      const waiting = client.withAbortSignal(abort.signal, () => handle.result());
      // The long poll ends with the abort; the race makes sure the attempt does at once.
      const aborted = new Promise<never>((_, reject) =>
        abort.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
      waiting.catch(() => undefined);
      aborted.catch(() => undefined);
      const value: unknown = await Promise.race([waiting, aborted]);
      return result('success', null, { body: truncate(JSON.stringify({ ...ref, result: value ?? null })) });
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        return result('retryable', workflowFailureMessage(err));
      }
      if (ctx.signal.aborted) {
        // overlap `cancel_previous`, job deleted: the workflow this attempt started goes too.
        await handle.cancel().catch(() => undefined);
        return result('fatal', 'attempt cancelled; cancellation requested for the workflow');
      }
      if (abort.signal.aborted) {
        return result('retryable', `timed out after ${ctx.timeoutMs} ms waiting for the workflow to complete`);
      }
      return result('retryable', `waiting for the workflow failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onCancel);
    }
  }
}
