/**
 * One attempt at any sink, dispatched on `sink.kind`: the webhook request or the command, with a
 * result of one shape for the run's attempt record. Each kind has its own config type; nothing
 * casts one kind's config to another's.
 */
import type { AttemptOutcome } from './classify';
import { type CommandSinkConfig, runCommand } from './command-sink';
import { summarizeRequest } from './http-client';
import type { NetworkRules } from './network-rules';
import { collectSecretNames, type TemplateContext } from './templating';
import { deliverWebhookAttempt, type WebhookSinkConfig } from './webhook-attempt';

export type Sink = { kind: 'webhook'; config: WebhookSinkConfig } | { kind: 'command'; config: CommandSinkConfig };

export interface SinkAttemptInput {
  sink: Sink;
  run: { id: string; scheduledAt: Date | number | string; attempt: number };
  job: { id: string; name: string };
  signingSecrets: readonly string[];
  secrets: TemplateContext['secrets'];
  nowMs: number;
  timeoutMs: number;
  rules: NetworkRules;
  serviceName: string;
  version: string;
  /** Off unless the server enables the command sink (`sinks.command.enabled`). */
  commandsEnabled: boolean;
  /** A sink test: webhook requests carry `Svc-Test: true`. */
  test?: boolean;
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
}

/** A stored sink as its typed kind; null for a kind this server does not know. */
export function toSink(kind: string, config: unknown): Sink | null {
  if (kind === 'webhook') {
    return { kind, config: config as WebhookSinkConfig };
  }
  if (kind === 'command') {
    return { kind, config: config as CommandSinkConfig };
  }
  return null;
}

/** What the attempt record shows before the request leaves (`safe` delivery mode). */
export function summarizeSink(sink: Sink): string {
  if (sink.kind === 'command') {
    return `exec ${sink.config.argv[0] ?? ''} (+${Math.max(0, sink.config.argv.length - 1)} args)`;
  }
  return summarizeRequest(sink.config.method ?? 'POST', sink.config.url, undefined);
}

/** Names of the workspace secrets a sink's templates reference: only these are decrypted to send it. */
export function sinkSecretNames(sink: Sink): string[] {
  return sink.kind === 'webhook' ? collectSecretNames(sink.config) : [];
}

/** A fatal attempt that sent nothing (the sink cannot be sent as configured); `error` holds no secret. */
export function unsentAttempt(sink: Sink, error: string): SinkAttemptResult {
  return {
    outcome: 'fatal',
    statusCode: null,
    durationMs: 0,
    error,
    requestSummary: summarizeSink(sink),
    body: null,
    retryAfterMs: null,
  };
}

export async function attemptSink(input: SinkAttemptInput): Promise<SinkAttemptResult> {
  const { sink } = input;
  if (sink.kind === 'command') {
    if (!input.commandsEnabled) {
      return unsentAttempt(sink, 'the command sink is disabled on this server');
    }
    const result = await runCommand({ config: sink.config, timeoutMs: input.timeoutMs });
    return {
      outcome: result.outcome,
      statusCode: null,
      durationMs: result.durationMs,
      error: result.outcome === 'success' ? null : (result.error ?? `exit code ${result.exitCode}`),
      requestSummary: result.requestSummary,
      body: result.output,
      retryAfterMs: null,
    };
  }
  const result = await deliverWebhookAttempt({
    config: sink.config,
    run: input.run,
    job: input.job,
    signingSecrets: input.signingSecrets,
    secrets: input.secrets,
    nowMs: input.nowMs,
    timeoutMs: input.timeoutMs,
    rules: input.rules,
    serviceName: input.serviceName,
    version: input.version,
    test: input.test,
  });
  const error =
    result.outcome === 'success'
      ? null
      : (result.error ?? (result.statusCode === null ? 'no response' : `HTTP ${result.statusCode}`));
  return {
    outcome: result.outcome,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error,
    requestSummary: result.requestSummary,
    body: result.body,
    retryAfterMs: result.retryAfterMs,
  };
}
