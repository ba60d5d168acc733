import type { AppConfig } from '@svc/common';
import { SecretDecryptionError, type SecretsCipher } from '@svc/common/secrets-crypto';
import {
  activeSigningSecrets,
  defaultSinkRegistry,
  networkRulesOf,
  secretsUsedBy,
  type Sink,
  type SigningSecretEntry,
  type SinkAttemptResult,
  type SinkRegistry,
  type SinkSendContext,
  type SinkServices,
  unsentResult,
} from '@svc/delivery';
import type { SecretsRepository, WorkspacesRepository } from '@svc/persistence';
import { serviceWorkflows } from './service-workflows';

/** One send of a job's sink: a delivery attempt (worker) or a sink test (API). */
export interface SendSinkInput {
  workspaceId: string;
  /** The workspace's narrowing of the server's task-queue allowlist (temporal_workflow), if any. */
  workspaceTaskQueues?: readonly string[] | null;
  sink: Sink;
  /** `run.id` is the `webhook-id` / `Idempotency-Key`; a sink test passes an id it never stores. */
  run: {
    id: string;
    scheduledAt: Date | string;
    /** Its planned time when the job has a start window. */
    plannedAt?: Date | string | null;
    /** 0-based */
    attempt: number;
  };
  job: { id: string; name: string };
  /** The job's stored signing secrets; the ones still signing at `nowMs` are used. */
  signingSecrets: readonly SigningSecretEntry[];
  /** Wall-clock time of sending, epoch ms (`fired_at`, `webhook-timestamp`, rotation expiry). */
  nowMs: number;
  timeoutMs: number;
  /** A sink test (`Svc-Test: true`, a marked workflow). */
  test?: boolean;
  /** The attempt's cancellation (overlap `cancel_previous`, job deleted). */
  signal?: AbortSignal;
  /** Records what the attempt started as soon as it did (a workflow); best effort. */
  reportStarted?: SinkSendContext['reportStarted'];
}

export interface SinkSenderDeps {
  secrets: SecretsRepository;
  cipher: SecretsCipher;
  config: AppConfig;
  /** The kinds this process knows; default the process's registry. */
  registry?: SinkRegistry;
  /** What kinds may use of the service (its Temporal connection); default: no Temporal client. */
  services?: SinkServices;
  /** Reads a workspace's own sink settings at send time (its temporal_workflow task queues). */
  workspaces?: Pick<WorkspacesRepository, 'findById'>;
}

/** What replaces a secret value found in a response body or error text. */
export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not searched for in responses: redacting every `ab` of a body
 * would mangle it, and a secret that short protects nothing anyway.
 */
export const MIN_REDACTED_LENGTH = 4;

/**
 * Sends a sink once, the same way for the worker's attempts and the API's sink tests: the job's
 * `{{secret.NAME}}` references are decrypted at send time (only the names the sink references,
 * in one query), the signing secrets still in their rotation window sign, and the server's
 * network rules apply.
 *
 * Secret values never leave this call in the result: a value that cannot be decrypted is a fatal
 * attempt naming the secret; a secret deleted after the job was saved fails rendering with
 * `unknown secret "NAME"`; and a value a receiver echoes back in its response (or that shows up
 * in an error) is replaced with `[redacted]` before the caller stores or returns it.
 */
export class SinkSender {
  private readonly services: SinkServices;

  constructor(private readonly deps: SinkSenderDeps) {
    this.services = deps.services ?? {
      config: deps.config,
      serviceWorkflows: serviceWorkflows(deps.config),
      temporal: () => {
        throw new Error('no Temporal connection is available to sinks in this process');
      },
    };
  }

  /**
   * @throws only for database errors while reading the secrets or the workspace (the caller
   *   retries; nothing was sent). Every other failure is a result.
   */
  async send(input: SendSinkInput): Promise<SinkAttemptResult> {
    const { config } = this.deps;
    const registry = this.deps.registry ?? defaultSinkRegistry();
    const kind = registry.get(input.sink.kind);
    if (!kind) {
      return unsentResult(input.sink.kind, `unknown sink kind ${input.sink.kind}`);
    }
    const summary = safeSummary(() => kind.summarize(input.sink.config), input.sink.kind);
    const disabled = kind.disabledReason(config);
    if (disabled) {
      return unsentResult(summary, disabled);
    }
    let values: Record<string, string>;
    try {
      values = await this.deps.secrets.resolveForWorkspace(
        input.workspaceId,
        // The secrets a delete is refused for are the ones an attempt decrypts (one home).
        secretsUsedBy(registry, input.sink.kind, input.sink.config),
        this.deps.cipher,
      );
    } catch (err) {
      if (err instanceof SecretDecryptionError) {
        return unsentResult(summary, err.message);
      }
      throw err;
    }
    let workspaceTaskQueues = input.workspaceTaskQueues;
    if (workspaceTaskQueues === undefined && kind.kind === 'temporal_workflow' && this.deps.workspaces) {
      // The one kind with a workspace setting: a narrowing made after the job was written holds
      // for its next attempt too (docs/security.md). Read only for it, so webhooks pay nothing.
      workspaceTaskQueues = (await this.deps.workspaces.findById(input.workspaceId))?.temporalWorkflowTaskQueues;
    }
    let result: SinkAttemptResult;
    try {
      result = await kind.send(input.sink.config, {
        workspace: { id: input.workspaceId, temporalWorkflowTaskQueues: workspaceTaskQueues ?? null },
        run: input.run,
        job: input.job,
        signingSecrets: activeSigningSecrets(input.signingSecrets, input.nowMs),
        secrets: values,
        nowMs: input.nowMs,
        timeoutMs: input.timeoutMs,
        rules: networkRulesOf(config),
        test: input.test ?? false,
        signal: input.signal ?? new AbortController().signal,
        services: this.services,
        reportStarted: input.reportStarted,
      });
    } catch (err) {
      // The contract says never throw; an extension that does fails the attempt, not the worker.
      result = unsentResult(summary, `sink ${kind.kind} failed: ${(err as Error).message}`);
    }
    return redactSecretValues(result, Object.values(values));
  }
}

function safeSummary(summarize: () => string, fallback: string): string {
  try {
    return summarize();
  } catch {
    return fallback;
  }
}

/**
 * The result with every occurrence of a secret value (as sent, and JSON-escaped as a receiver
 * echoing a JSON body would write it) replaced with `[redacted]` in the response body, the error
 * and the request summary.
 */
export function redactSecretValues(result: SinkAttemptResult, values: readonly string[]): SinkAttemptResult {
  const needles = [...new Set(values.flatMap((value) => [value, JSON.stringify(value).slice(1, -1)]))]
    .filter((needle) => needle.length >= MIN_REDACTED_LENGTH)
    // Longest first: a value containing another is replaced whole.
    .sort((a, b) => b.length - a.length);
  if (needles.length === 0) {
    return result;
  }
  const redact = (text: string) => needles.reduce((out, needle) => out.split(needle).join(REDACTED), text);
  return {
    ...result,
    body: result.body === null ? null : redact(result.body),
    error: result.error === null ? null : redact(result.error),
    requestSummary: redact(result.requestSummary),
  };
}
