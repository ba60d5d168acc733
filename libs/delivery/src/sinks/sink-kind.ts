/**
 * The sink extension point (docs/extending.md): what a kind of sink is to the service. The API
 * validates a job's `sink.config` with it and documents it in OpenAPI, the dashboard builds its
 * form from it, the Temporal displays describe the target with it, and the worker's attempt
 * activity sends through it. webhook, command and temporal_workflow are implementations like any
 * other; a Nest module providing one more (libs/extensions) adds a kind without a core edit.
 */
import type { Client } from '@temporalio/client';
import type { AppConfig } from '@svc/common';
import type { AttemptOutcome } from '@svc/workflow-contract/run-rules';
import type { NetworkRules } from '../network-rules';
import type { TemplateContext } from '../templating';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1). */
export type SinkJsonSchema = { [keyword: string]: unknown };

/** Field path → message, paths starting with `sink.config` (the API's `400 validation_failed`). */
export type SinkFieldErrors = Record<string, string>;

/**
 * The service's own Temporal machinery (docs/security.md → The temporal_workflow sink): what no
 * job may start, poll or imitate. Derived from the workflows the worker registers and the task
 * queues it polls (libs/orchestration `serviceWorkflows`).
 */
export interface ServiceWorkflows {
  /** Every task queue the service's workers poll (jobs, runs, alerts, parked). */
  taskQueues: readonly string[];
  /** Every workflow type the service's workers register. */
  workflowTypes: readonly string[];
  /** Prefixes of the ids the service gives its own executions (`job_`, `run_`, `evt_`, `verify-`…). */
  workflowIdPrefixes: readonly string[];
}

/** What the service lends a kind: its configuration and its connection to Temporal. */
export interface SinkServices {
  config: AppConfig;
  /** A Temporal client of the process's own connection for `namespace` (API and worker alike). */
  temporal(namespace: string): Client;
  /** The service's own workflows, task queues and workflow ids: off limits to every job. */
  serviceWorkflows: ServiceWorkflows;
}

/** The workspace a job belongs to, as a sink sees it. */
export interface SinkWorkspace {
  id: string;
  /**
   * The workspace admin's narrowing of the server's task-queue allowlist (patterns; `*` any run
   * of characters), or null: the server's list as is.
   */
  temporalWorkflowTaskQueues?: readonly string[] | null;
}

/** The run a send is an attempt of (templates and signed payloads show it). */
export interface SinkRun {
  id: string;
  scheduledAt: Date | number | string;
  /** Its planned time when the job has a start window: `planned_at`, `Svc-Planned-At`. */
  plannedAt?: Date | number | string | null;
  /** 0-based */
  attempt: number;
}

/** One send of a sink: an attempt of a run (worker) or a sink test (API). */
export interface SinkSendContext {
  /** The job's workspace (`{{workspace.id}}`; what the temporal_workflow sink marks its executions with). */
  workspace: SinkWorkspace;
  run: SinkRun;
  job: { id: string; name: string };
  /** Decrypted values of the secrets `secretNames` listed (redacted from the result afterwards). */
  secrets: TemplateContext['secrets'];
  /** Signing secrets still signing now (webhooks sign with them). */
  signingSecrets: readonly string[];
  /** Wall-clock time of sending, epoch ms (`fired_at`). */
  nowMs: number;
  /** The job's per-attempt timeout. */
  timeoutMs: number;
  rules: NetworkRules;
  /** A sink test (`POST /jobs/test`): nothing of it is recorded; the receiver should be told. */
  test: boolean;
  /** Aborted when the attempt is cancelled (overlap `cancel_previous`, job deleted, shutdown). */
  signal: AbortSignal;
  services: SinkServices;
  /**
   * Tells the service what the attempt started, as soon as it did (the run page links to it while
   * the attempt still waits); best effort, never throws.
   */
  reportStarted?(ref: StartedWorkflowRef): Promise<void>;
}

/** Something the attempt started elsewhere that the run and its attempt record (a workflow). */
export interface StartedWorkflowRef {
  namespace: string;
  workflow_id: string;
  run_id: string;
}

export interface SinkAttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  durationMs: number;
  /** Null on success. */
  error: string | null;
  requestSummary: string;
  /** The response body, or a command's output. */
  body: string | null;
  retryAfterMs: number | null;
  /** The workflow this attempt started or attached to (temporal_workflow). */
  startedWorkflow?: StartedWorkflowRef | null;
}

/** A field of the dashboard's job form for this kind (the dashboard renders these generically). */
export interface SinkFormField {
  /** The `sink.config` key. */
  name: string;
  label: string;
  /** `json`: any JSON value as text; `lines`: a string list, one per line; `map`: `KEY=value` lines. */
  type: 'text' | 'textarea' | 'number' | 'select' | 'checkbox' | 'json' | 'lines' | 'map';
  required?: boolean;
  options?: readonly string[];
  placeholder?: string;
  help?: string;
}

export interface SinkValidateContext {
  config: AppConfig;
  /** Lends the Temporal connection for checks against the server (search attributes). */
  services: SinkServices;
  /** The workspace the job is written in: its own narrowing of what it may target. */
  workspace?: SinkWorkspace;
}

export interface SinkKind<C extends object = Record<string, unknown>> {
  /** The `sink.kind` value: `[a-z][a-z0-9_]*`. */
  readonly kind: string;
  /** The dashboard's name for it. */
  readonly label: string;
  /** One paragraph for the OpenAPI document. */
  readonly description: string;
  /**
   * The config's JSON Schema: the API checks every `sink.config` against it first (field errors
   * `sink.config.<path>`), and the OpenAPI document and the dashboard show it. Keep it exact:
   * what it accepts, `normalize` should accept too.
   */
  readonly configSchema: SinkJsonSchema;
  /** The dashboard's form fields, in order. */
  readonly formFields: readonly SinkFormField[];
  /**
   * Top-level config fields a single run may override (a trigger's, retry's or backfill's
   * `overrides`, run-overrides.ts); none when absent. Object fields merge key by key.
   */
  readonly overridableFields?: readonly string[];
  /** Why this server refuses the kind (`sink.kind` error), or null when it is enabled. */
  disabledReason(config: AppConfig): string | null;
  /**
   * Checks beyond the schema and fills in defaults: the stored config. Runs after the schema
   * passed; returns the errors instead when there are any.
   */
  normalize(config: C, ctx: SinkValidateContext): Promise<{ config: C } | { fields: SinkFieldErrors }>;
  /**
   * Texts that may hold `{{…}}` templates, by field path (`sink.config.body`); the API checks
   * their variables and that the secrets they name exist. Every other field must hold none.
   */
  templateFields(config: C): Record<string, string>;
  /** Names of the secrets the config references: only these are decrypted to send it (and redacted after). */
  secretNames(config: C): string[];
  /** The target for the Temporal Web UI and the dashboard: secret-free (`POST hooks.example.com`). */
  describe(config: C): string;
  /** What the attempt record shows before anything is sent (`safe` delivery mode); secret-free. */
  summarize(config: C): string;
  /** Sends once. Never throws: every failure is a result (`fatal` when nothing can be sent as configured). */
  send(config: C, ctx: SinkSendContext): Promise<SinkAttemptResult>;
}

/** Any kind, whatever its config type (the registry's view). */
export type AnySinkKind = SinkKind<any>;

/** A fatal attempt that sent nothing; `error` holds no secret. */
export function unsentResult(requestSummary: string, error: string): SinkAttemptResult {
  return { outcome: 'fatal', statusCode: null, durationMs: 0, error, requestSummary, body: null, retryAfterMs: null };
}
