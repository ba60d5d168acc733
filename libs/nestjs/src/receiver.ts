/**
 * One delivery in, one answer out: verification, the job's method, the status the service
 * classifies (spec: Events → Response classification). No HTTP framework here: the module's route
 * (Express or Fastify) hands over the raw body and headers and sends back `status` and `body`.
 */
import { NonRetryableError } from './errors';
import { JOB_KEY_HEADER } from './job-set';
import { ReplayCache } from './replay-cache';
import type { ScheduledJobContext } from './scheduled-job.decorator';
import { type HeaderBag, header, verifyDelivery } from './verify';

export interface ReceiverAnswer {
  status: number;
  body: { ok: true; replayed?: boolean } | { error: string };
}

/** A discovered method, ready to be called. */
export interface JobHandler {
  key: string;
  methodName: string;
  /** The job's per-attempt timeout: the method's signal aborts when it passes. */
  timeoutMs: number;
  call(context: ScheduledJobContext): unknown;
}

/** 422 is outside the default `retry_on` (5xx, 408, 429): the service fails the run at once. */
export const NON_RETRYABLE_STATUS = 422;

interface Payload {
  run_id?: unknown;
  scheduled_at?: unknown;
  attempt?: unknown;
  trigger?: unknown;
}

export class DeliveryReceiver {
  private readonly replays: ReplayCache<ReceiverAnswer>;

  constructor(
    private readonly handlers: ReadonlyMap<string, JobHandler>,
    private readonly secrets: readonly string[],
    options: { replayCacheSize?: number; onError?: (handler: JobHandler, error: unknown) => void } = {},
  ) {
    this.replays = new ReplayCache(options.replayCacheSize ?? 10_000);
    this.onError = options.onError ?? (() => undefined);
  }

  private readonly onError: (handler: JobHandler, error: unknown) => void;

  async handle(rawBody: Buffer | string, headers: HeaderBag): Promise<ReceiverAnswer> {
    if (!verifyDelivery(this.secrets, rawBody, headers)) {
      return { status: 401, body: { error: 'invalid or missing webhook signature' } };
    }
    const key = header(headers, JOB_KEY_HEADER);
    const handler = key === undefined ? undefined : this.handlers.get(key);
    if (handler === undefined) {
      // 404 is fatal for the service: a job no method of this release declares any more.
      return { status: 404, body: { error: `no @ScheduledJob with key "${key ?? ''}" in this app` } };
    }
    let payload: Payload;
    try {
      payload = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as Payload;
    } catch {
      return { status: 400, body: { error: 'the body is not the standard JSON payload' } };
    }
    const webhookId = header(headers, 'webhook-id')!;
    const runId = typeof payload.run_id === 'string' ? payload.run_id : webhookId;
    // The webhook-id is the run id, the same on every retry: a run handled here is answered again
    // without a call, one in flight is joined; a failed attempt is forgotten so its retry runs.
    const seen = this.replays.get(webhookId);
    if (seen !== undefined) {
      const answer = await seen;
      return answer.status < 300 ? { status: answer.status, body: { ok: true, replayed: true } } : answer;
    }
    const attempt = Number(header(headers, 'svc-attempt') ?? payload.attempt ?? 0);
    const scheduledAt = new Date(
      String(header(headers, 'svc-scheduled-at') ?? payload.scheduled_at ?? new Date().toISOString()),
    );
    const trigger = typeof payload.trigger === 'string' ? payload.trigger : 'schedule';
    const running = this.run(handler, { jobKey: handler.key, runId, scheduledAt, trigger, attempt });
    this.replays.set(webhookId, running);
    const answer = await running;
    if (answer.status >= 300) {
      this.replays.delete(webhookId);
    }
    return answer;
  }

  private async run(handler: JobHandler, context: Omit<ScheduledJobContext, 'signal'>): Promise<ReceiverAnswer> {
    const controller = new AbortController();
    // The service stops waiting at the job's timeout (a retryable `timeout`): tell the method.
    const timer = setTimeout(
      () => controller.abort(new Error(`the job's timeout of ${handler.timeoutMs} ms has passed`)),
      handler.timeoutMs,
    );
    try {
      await handler.call({ ...context, signal: controller.signal });
      return { status: 200, body: { ok: true } };
    } catch (error) {
      this.onError(handler, error);
      const message = error instanceof Error ? error.message : String(error);
      const status = error instanceof NonRetryableError ? NON_RETRYABLE_STATUS : 500;
      return { status, body: { error: `${handler.methodName}: ${message}` } };
    } finally {
      clearTimeout(timer);
    }
  }
}
