import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AppConfig } from '@svc/common';
import {
  computeRetryDelayMs,
  deliverWebhookAttempt,
  summarizeRequest,
  type WebhookAttemptResult,
  type WebhookSinkConfig,
} from '@svc/delivery';
import { JobsRepository, RunsRepository } from '@svc/persistence';
import type { DeliveryActivities } from '@svc/workflows/activity-types';

const HEARTBEAT_EVERY_MS = 2_000;

export interface DeliveryActivityDeps {
  jobs: JobsRepository;
  runs: RunsRepository;
  config: AppConfig;
  clock: () => Date;
  random: () => number;
}

/**
 * One delivery attempt per activity execution (attempt n = Temporal's attempt − 1). In `safe`
 * mode the attempt row is written before the request leaves; after a crash the open attempt is
 * closed as `interrupted` by the next one. Retryable outcomes throw with the next-retry delay
 * (backoff, jitter, Retry-After); fatal ones throw non-retryable.
 */
export function createDeliveryActivities(deps: DeliveryActivityDeps): DeliveryActivities {
  const { jobs, runs, config, clock, random } = deps;

  return {
    async deliverAttempt({ runId }): Promise<{ statusCode: number | null }> {
      const context = Context.current();
      const n = context.info.attempt - 1;
      const run = await runs.findByIdUnscoped(runId);
      if (!run) {
        throw ApplicationFailure.nonRetryable(`run ${runId} not found`, 'RunGone');
      }
      if (run.status !== 'running' && run.status !== 'deferred') {
        return { statusCode: null };
      }
      const job = await jobs.findWithSecretsUnscoped(run.jobId);
      if (!job) {
        throw ApplicationFailure.nonRetryable('job deleted', 'RunGone');
      }
      const webhook = job.sinkConfig as unknown as WebhookSinkConfig;
      const firedAt = clock();
      const signingSecrets = job.signingSecrets
        .filter((s) => !s.expires_at || Date.parse(s.expires_at) > firedAt.getTime())
        .map((s) => s.secret);

      await runs.startAttempt(run, n, firedAt, summarizeRequest(webhook.method ?? 'POST', webhook.url, undefined));
      const heartbeat = setInterval(() => context.heartbeat({ n }), HEARTBEAT_EVERY_MS);
      let result: WebhookAttemptResult;
      try {
        result = await deliverWebhookAttempt({
          config: webhook,
          run: { id: run.id, scheduledAt: run.scheduledAt, attempt: n },
          job: { id: job.id, name: job.name },
          signingSecrets,
          secrets: {},
          nowMs: firedAt.getTime(),
          timeoutMs: job.timeoutMs,
          rules: { mode: config.mode, allowPrivateNetworks: config.sinks.webhook.allow_private_networks },
          serviceName: config.service_name,
          version: config.version,
        });
      } finally {
        clearInterval(heartbeat);
      }

      const error = result.outcome === 'success' ? null : attemptError(result);
      const finishedAt = clock();
      await runs.finishAttempt(runId, n, {
        finishedAt,
        durationMs: Math.round(result.durationMs),
        outcome: result.outcome,
        statusCode: result.statusCode,
        error,
        requestSummary: result.requestSummary,
        responseBody: result.outcome !== 'success' || config.runs.store_success_bodies ? result.body : null,
      });
      if (result.outcome === 'success') {
        return { statusCode: result.statusCode };
      }
      if (result.outcome === 'fatal') {
        throw ApplicationFailure.nonRetryable(error ?? 'fatal response', 'FatalDelivery');
      }
      if (n + 1 >= job.retry.max_attempts) {
        throw ApplicationFailure.nonRetryable(`${error} (after ${n + 1} attempts)`, 'AttemptsExhausted');
      }
      const delayMs = computeRetryDelayMs({
        attemptIndex: n,
        policy: {
          backoff: job.retry.backoff,
          initialIntervalMs: job.retry.initial_interval_ms,
          maxIntervalMs: job.retry.max_interval_ms,
          multiplier: job.retry.multiplier,
          jitter: job.retry.jitter,
        },
        retryAfterMs: result.retryAfterMs,
        random,
      });
      await runs.deferRun(runId, new Date(finishedAt.getTime() + delayMs), error);
      throw ApplicationFailure.create({
        message: error ?? 'retryable response',
        type: 'RetryableDelivery',
        nextRetryDelay: Math.max(1, delayMs),
      });
    },
  };
}

function attemptError(result: WebhookAttemptResult): string {
  if (result.error) {
    return result.error;
  }
  return result.statusCode === null ? 'no response' : `HTTP ${result.statusCode}`;
}
