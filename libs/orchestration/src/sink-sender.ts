import type { AppConfig } from '@svc/common';
import { SecretDecryptionError, type SecretsCipher } from '@svc/common/secrets-crypto';
import {
  activeSigningSecrets,
  attemptSink,
  networkRulesOf,
  type Sink,
  type SigningSecretEntry,
  type SinkAttemptResult,
  sinkSecretNames,
  unsentAttempt,
} from '@svc/delivery';
import type { SecretsRepository } from '@svc/persistence';

/** One send of a job's sink: a delivery attempt (worker) or a sink test (API). */
export interface SendSinkInput {
  workspaceId: string;
  sink: Sink;
  /** `run.id` is the `webhook-id` / `Idempotency-Key`; a sink test passes an id it never stores. */
  run: { id: string; scheduledAt: Date | string; /** 0-based */ attempt: number };
  job: { id: string; name: string };
  /** The job's stored signing secrets; the ones still signing at `nowMs` are used. */
  signingSecrets: readonly SigningSecretEntry[];
  /** Wall-clock time of sending, epoch ms (`fired_at`, `webhook-timestamp`, rotation expiry). */
  nowMs: number;
  timeoutMs: number;
  /** A sink test (`Svc-Test: true`). */
  test?: boolean;
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
  constructor(private readonly deps: { secrets: SecretsRepository; cipher: SecretsCipher; config: AppConfig }) {}

  /**
   * @throws only for database errors while reading the secrets (the caller retries; nothing was
   *   sent). Every other failure is a result.
   */
  async send(input: SendSinkInput): Promise<SinkAttemptResult> {
    const { config } = this.deps;
    let values: Record<string, string>;
    try {
      values = await this.deps.secrets.resolveForWorkspace(
        input.workspaceId,
        sinkSecretNames(input.sink),
        this.deps.cipher,
      );
    } catch (err) {
      if (err instanceof SecretDecryptionError) {
        return unsentAttempt(input.sink, err.message);
      }
      throw err;
    }
    const result = await attemptSink({
      sink: input.sink,
      run: input.run,
      job: input.job,
      signingSecrets: activeSigningSecrets(input.signingSecrets, input.nowMs),
      secrets: values,
      nowMs: input.nowMs,
      timeoutMs: input.timeoutMs,
      rules: networkRulesOf(config),
      serviceName: config.service_name,
      version: config.version,
      commandsEnabled: config.sinks.command.enabled,
      test: input.test,
    });
    return redactSecretValues(result, Object.values(values));
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
