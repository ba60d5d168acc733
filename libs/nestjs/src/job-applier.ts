/**
 * Applies the discovered set to the service (`POST /api/v1/jobs/apply`, `managed_by: owner`,
 * `prune: true`) through the typed client, and keeps trying in the background while the service
 * cannot be reached. Its state is what the health indicator reports.
 */
import { type ApiClient, ApiRequestError, type ApplyPlan, applyJobs, createApiClient } from '@svc/api-client';
import { ScheduledJobsConfigError } from './errors';
import { type ApplyJobEntry, describeApplyFields, type DiscoveredJob } from './job-set';

export type { ApplyPlan } from '@svc/api-client';

export type ApplyState =
  | { status: 'pending'; attempts: number; lastError?: string }
  | { status: 'applied'; plan: ApplyPlan; at: Date }
  | { status: 'failed'; error: string };

/** A failure worth retrying: the service down, starting, rate limiting or failing. */
class RetryableApplyError extends Error {}

export interface ApplierOptions {
  baseUrl: string;
  apiKey: string;
  owner: string;
  initialDelayMs?: number;
  maxDelayMs?: number;
  log?: (level: 'log' | 'warn' | 'error', message: string) => void;
}

export class JobApplier {
  private state: ApplyState = { status: 'pending', attempts: 0 };
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly client: ApiClient;
  private readonly log: NonNullable<ApplierOptions['log']>;

  constructor(private readonly options: ApplierOptions) {
    const client = createApiClient({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
    });
    this.client = client;
    this.log = options.log ?? (() => undefined);
  }

  get current(): ApplyState {
    return this.state;
  }

  /**
   * The first apply, awaited by bootstrap: a validation error (400, 409, 403) throws, naming the
   * method; an unreachable or failing service leaves the app starting and retries with backoff.
   */
  async start(jobs: readonly DiscoveredJob[], entries: ApplyJobEntry[]): Promise<void> {
    try {
      await this.applyOnce(jobs, entries);
    } catch (error) {
      if (!(error instanceof RetryableApplyError)) {
        this.state = { status: 'failed', error: (error as Error).message };
        throw error;
      }
      this.retryLater(jobs, entries, error.message);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private retryLater(jobs: readonly DiscoveredJob[], entries: ApplyJobEntry[], lastError: string): void {
    const attempts = this.state.status === 'pending' ? this.state.attempts + 1 : 1;
    this.state = { status: 'pending', attempts, lastError };
    const initial = this.options.initialDelayMs ?? 1000;
    const delay = Math.min(initial * 2 ** (attempts - 1), this.options.maxDelayMs ?? 60_000);
    this.log('warn', `scheduled jobs not applied yet (${lastError}); retrying in ${delay} ms`);
    if (this.stopped) {
      return;
    }
    this.timer = setTimeout(() => {
      this.applyOnce(jobs, entries).catch((error: Error) => {
        if (error instanceof RetryableApplyError) {
          this.retryLater(jobs, entries, error.message);
        } else {
          // The app is up already: report it (logs, health) rather than crash a serving process.
          this.state = { status: 'failed', error: error.message };
          this.log('error', `scheduled jobs refused by the service: ${error.message}`);
        }
      });
    }, delay);
    this.timer.unref();
  }

  private async applyOnce(jobs: readonly DiscoveredJob[], entries: ApplyJobEntry[]): Promise<void> {
    let plan: ApplyPlan;
    try {
      plan = await applyJobs(this.client, {
        managed_by: this.options.owner,
        jobs: entries,
        prune: true,
        dry_run: false,
      });
    } catch (error) {
      if (!(error instanceof ApiRequestError)) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        throw new RetryableApplyError(`${this.options.baseUrl} unreachable: ${cause ?? (error as Error).message}`);
      }
      const { status, body } = error;
      if (status >= 500 || status === 429 || status === 408) {
        throw new RetryableApplyError(`the service answered ${status} ${body?.error?.code ?? ''}`.trim());
      }
      const fields = body?.error?.fields as Record<string, string> | undefined;
      if (fields !== undefined && Object.keys(fields).length > 0) {
        throw new ScheduledJobsConfigError(describeApplyFields(fields, jobs));
      }
      throw new ScheduledJobsConfigError(
        `the service refused the scheduled jobs of ${this.options.owner}: ${error.message}`,
      );
    }
    this.state = { status: 'applied', plan, at: new Date() };
    this.log(
      'log',
      `scheduled jobs applied for ${this.options.owner}: ${plan.created.length} created, ${plan.updated.length} updated, ` +
        `${plan.unchanged.length} unchanged, ${plan.deleted.length} deleted`,
    );
  }
}
