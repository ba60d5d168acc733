/**
 * The `temporal_workflow` sink (docs/extending.md → temporal_workflow): each attempt starts (or
 * attaches to) one execution of the team's own workflow and, with `wait: completed`, ends with
 * its outcome.
 *
 * One execution per attempt, even across crashes: the workflow id defaults to one derived from
 * the workspace and the run (`svc-{{workspace.id}}-{{run.id}}`), started with conflict policy FAIL
 * and reuse policy ALLOW_DUPLICATE_FAILED_ONLY: a start that succeeds is an execution this attempt
 * created; an id already taken (an attempt retried after a worker died mid-attempt, or after the
 * first one saw the workflow complete) attaches to that execution only once its memo says this job
 * of this workspace started it (docs/security.md → The temporal_workflow sink). A retry after a
 * failed, timed-out, terminated or cancelled execution starts a fresh one.
 *
 * Walls: no job names the service's own task queues or workflow types, nor a workflow id of the
 * service's id scheme; task queues are limited by the server's per-namespace allowlist and the
 * workspace's narrowing of it. Checked when a job is written (`normalize`) and again at send
 * time, for jobs stored before the walls existed.
 */
import {
  type Client,
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
} from '@temporalio/client';
import type { SearchAttributes } from '@temporalio/common';
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
import {
  allowedNamespaces,
  DEFAULT_SINK_WORKFLOW_ID,
  DURATION_PATTERN,
  FATAL_GRPC_CODES,
  IDENTITY_ATTRIBUTES_TTL_MS,
  INDEXED_TYPE_NAMES,
  isOtherWorkspaceId,
  renderJson,
  sampleWorkflowIdRefusal,
  SINK_IDENTITY_ATTRIBUTES,
  startedBy,
  stringLeaves,
  TASK_QUEUE_PATTERN,
  taskQueueRefusal,
  type TemporalWorkflowSinkConfig,
  TEXT_TYPES,
  truncate,
  workflowFailureMessage,
  workflowIdRefusal,
  workflowTypeRefusal,
} from './temporal-workflow.rules';

export {
  allowedNamespaces,
  DEFAULT_SINK_WORKFLOW_ID,
  isOtherWorkspaceId,
  SINK_IDENTITY_ATTRIBUTES,
  startedBy,
  TASK_QUEUE_GLOB_PATTERN,
  TASK_QUEUE_PATTERN,
  taskQueueMatches,
  taskQueueRefusal,
  type TemporalWorkflowSinkConfig,
  workflowFailureMessage,
  workflowIdRefusal,
  workflowTypeRefusal,
  workflowUiUrl,
} from './temporal-workflow.rules';

export class TemporalWorkflowSinkKind implements SinkKind<TemporalWorkflowSinkConfig> {
  /** Namespace → the identity search attributes it registers, until when that is trusted. */
  private readonly registered = new Map<string, { names: Set<string>; until: number }>();
  readonly kind = 'temporal_workflow';
  readonly label = 'Temporal workflow';
  readonly description =
    'Starts a workflow of your own on the Temporal server (`namespace`: the service’s unless the server allows ' +
    'others; `task_queue`: within the server’s and the workspace’s allowlists, never one of the service’s own, ' +
    'nor may `workflow_type` be one of its workflows). `args` and `workflow_id` take the `{{…}}` template ' +
    'variables (`args` also `{{secret.NAME}}`). The default workflow id is derived from the workspace and the ' +
    'run, so an attempt retried after a crash attaches to the execution already started; an id whose execution ' +
    'another job started is a failed attempt, never attached to. `wait: started` succeeds once it runs; ' +
    '`wait: completed` ends with its outcome (at most the job’s timeout).';
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
      memo: {
        anyOf: [{ type: 'object', maxProperties: 50, additionalProperties: true }, { type: 'null' }],
        description: 'Memo fields of the started workflow (JSON values); `svc_*` names are the service’s own',
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
    { name: 'memo', label: 'Memo (JSON)', type: 'json' },
  ] as const;
  readonly overridableFields = ['args', 'memo', 'search_attributes'] as const;

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
    const queue = taskQueueRefusal(config.task_queue, namespace, ctx.services, ctx.workspace);
    if (queue) {
      fields['sink.config.task_queue'] = queue;
    }
    const type = workflowTypeRefusal(config.workflow_type, ctx.services.serviceWorkflows);
    if (type) {
      fields['sink.config.workflow_type'] = type;
    }
    if (typeof config.workflow_id === 'string') {
      const secret = findTemplateReferences(config.workflow_id).find((ref) => ref.kind === 'secret');
      const refusal = secret
        ? `secrets are not allowed in the workflow id (${secret.raw})`
        : sampleWorkflowIdRefusal(config.workflow_id, ctx);
      if (refusal) {
        fields['sink.config.workflow_id'] = refusal;
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
    for (const name of Object.keys(config.memo ?? {})) {
      if (name.startsWith('svc_')) {
        fields[`sink.config.memo.${name}`] =
          `"${name}" is set by the service (svc_* memo fields) and cannot be set by a job`;
      }
    }
    if (config.memo && Buffer.byteLength(JSON.stringify(config.memo), 'utf8') > 32 * 1024) {
      fields['sink.config.memo'] = 'must be at most 32 KiB as JSON';
    }
    for (const name of SINK_IDENTITY_ATTRIBUTES) {
      if (config.search_attributes && name in config.search_attributes) {
        fields[`sink.config.search_attributes.${name}`] =
          `"${name}" is set by the service (who started the execution) and cannot be set by a job`;
      }
    }
    if (
      !Object.keys(fields).some(
        (f) => f === 'sink.config.namespace' || f.startsWith('sink.config.search_attributes'),
      ) &&
      config.search_attributes &&
      Object.keys(config.search_attributes).length
    ) {
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
        ...(config.memo && Object.keys(config.memo).length ? { memo: config.memo } : {}),
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
    const { services, workspace } = ctx;
    if (this.disabledReason(services.config)) {
      return result('fatal', 'the temporal_workflow sink is disabled on this server');
    }
    if (!allowedNamespaces(services.config).includes(namespace)) {
      return result('fatal', `namespace "${namespace}" is not allowed on this server`);
    }
    // Again at send time: a job stored before these walls existed must not reach the service.
    const refused =
      workflowTypeRefusal(config.workflow_type, services.serviceWorkflows) ??
      taskQueueRefusal(config.task_queue, namespace, services, workspace);
    if (refused) {
      return result('fatal', refused);
    }
    const templateContext: TemplateContext = {
      run: ctx.run,
      job: ctx.job,
      workspace,
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
    const idRefused = workflowIdRefusal(workflowId, services.serviceWorkflows);
    if (idRefused) {
      return result('fatal', idRefused);
    }
    if (isOtherWorkspaceId(workflowId, workspace.id)) {
      // Not even a start: under a failed execution's id it would take that workspace's id over.
      return result('fatal', `workflow id ${workflowId} belongs to another job`);
    }
    const client = services.temporal(namespace);
    let runId: string;
    try {
      const timeoutMs = config.timeout ? parseDuration(config.timeout) : null;
      const identity: Record<(typeof SINK_IDENTITY_ATTRIBUTES)[number], string> = {
        SvcWorkspaceId: workspace.id,
        SvcJobId: ctx.job.id,
        SvcRunId: ctx.run.id,
      };
      const registered = await this.identityAttributes(client, namespace);
      const search = [
        // Values were checked against the namespace's attribute types when the job was saved.
        ...Object.entries(config.search_attributes ?? {}).filter(([k]) => !(k in identity)),
        ...Object.entries(identity).filter(([k]) => registered.has(k)),
      ];
      // Conflict policy FAIL: a start that returns created this execution; an id already taken is
      // attached to below only after its owner is checked (no start, signal or read before).
      const startedHandle = await client.workflow.start(config.workflow_type, {
        taskQueue: config.task_queue,
        workflowId,
        args,
        // Who started it and for which attempt: how an attachment is checked, the mark of a sink
        // test, and how an operator finds the run from the workflow.
        memo: {
          // The job's own first: the service's fields below always win (normalize refuses `svc_*`).
          ...(config.memo ?? {}),
          svc_workspace_id: workspace.id,
          svc_job_id: ctx.job.id,
          svc_run_id: ctx.run.id,
          svc_attempt: ctx.run.attempt,
          ...(ctx.test ? { svc_test: true } : {}),
        },
        ...(search.length > 0
          ? {
              searchAttributes: Object.fromEntries(
                search.map(([k, v]) => [k, Array.isArray(v) ? v : [v]]),
              ) as SearchAttributes,
            }
          : {}),
        ...(timeoutMs ? { workflowExecutionTimeout: timeoutMs } : {}),
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
      runId = startedHandle.firstExecutionRunId;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        // The id is taken: still running (an attempt retried after a worker died mid-attempt) or
        // completed (the first attempt saw it finish but could not record it). Its outcome is
        // this attempt's only when this job of this workspace started it.
        let described: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['describe']>>;
        try {
          described = await client.workflow.getHandle(workflowId).describe();
        } catch (describeErr) {
          return result(
            'retryable',
            `workflow ${workflowId} exists but cannot be read: ${(describeErr as Error).message}`,
          );
        }
        if (!startedBy(described.memo, workspace.id, ctx.job.id)) {
          return result('fatal', `workflow id ${workflowId} belongs to another job`);
        }
        runId = described.runId;
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

  /**
   * The identity search attributes the namespace registers as Keyword or Text (cached for a few
   * minutes); none when they cannot be read (the memo still says who started the execution).
   */
  private async identityAttributes(client: Client, namespace: string): Promise<Set<string>> {
    const cached = this.registered.get(namespace);
    if (cached && cached.until > Date.now()) {
      return cached.names;
    }
    let names = new Set<string>();
    try {
      const listed = await client.connection.operatorService.listSearchAttributes({ namespace });
      const custom = (listed.customAttributes ?? {}) as Record<string, number>;
      names = new Set(SINK_IDENTITY_ATTRIBUTES.filter((name) => TEXT_TYPES.has(custom[name])));
    } catch {
      // Not cached: the next attempt asks again.
      return names;
    }
    this.registered.set(namespace, { names, until: Date.now() + IDENTITY_ATTRIBUTES_TTL_MS });
    return names;
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
