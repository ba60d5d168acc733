/**
 * Applies the discovered set to the service (`POST /api/v1/jobs/apply`, `managed_by: owner`,
 * `prune: true`) through the typed client, and keeps trying in the background while the service
 * cannot be reached. Its state is what the health indicator reports.
 */
import { createApiClient } from '@svc/api-client';
import { ScheduledJobsConfigError } from './errors';
import { type ApplyJobEntry, describeApplyFields, type DiscoveredJob } from './job-set';

/** The plan `apply` answers (issue 42). */
export interface ApplyPlan {
  created: string[];
  updated: Array<{ key: string; changes: string[] }>;
  unchanged: string[];
  deleted: string[];
  kept?: unknown;
}

export type ApplyState =
  | { status: 'pending'; attempts: number; lastError?: string }
  | { status: 'applied'; plan: ApplyPlan; at: Date }
  | { status: 'failed'; error: string };

interface ApplyBody {
  managed_by: string;
  jobs: ApplyJobEntry[];
  prune: boolean;
  dry_run: boolean;
}

/**
 * The one call the module makes. Typed as the contract of issue 42 states it until the generated
 * client carries the operation: the request still goes through the generated client (auth,
 * base URL, JSON), only the path's types are asserted here.
 */
type ApplyCall = (
  path: '/api/v1/jobs/apply',
  init: { body: ApplyBody },
) => Promise<{
  data?: ApplyPlan;
  error?: { error?: { code?: string; message?: string; fields?: Record<string, string> } };
  response: Response;
}>;

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
  private readonly post: ApplyCall;
  private readonly log: NonNullable<ApplierOptions['log']>;

  constructor(private readonly options: ApplierOptions) {
    const client = createApiClient({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
    });
    this.post = client.POST.bind(client) as unknown as ApplyCall;
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
    let result: Awaited<ReturnType<ApplyCall>>;
    try {
      result = await this.post('/api/v1/jobs/apply', {
        body: { managed_by: this.options.owner, jobs: entries, prune: true, dry_run: false },
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new RetryableApplyError(`${this.options.baseUrl} unreachable: ${cause ?? (error as Error).message}`);
    }
    const { data, error, response } = result;
    if (data !== undefined && response.ok) {
      this.state = { status: 'applied', plan: data, at: new Date() };
      this.log(
        'log',
        `scheduled jobs applied for ${this.options.owner}: ${data.created.length} created, ${data.updated.length} updated, ` +
          `${data.unchanged.length} unchanged, ${data.deleted.length} deleted`,
      );
      return;
    }
    const envelope = error?.error;
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      throw new RetryableApplyError(`the service answered ${response.status} ${envelope?.code ?? ''}`.trim());
    }
    if (envelope?.fields !== undefined && Object.keys(envelope.fields).length > 0) {
      throw new ScheduledJobsConfigError(describeApplyFields(envelope.fields, jobs));
    }
    throw new ScheduledJobsConfigError(
      `the service refused the scheduled jobs of ${this.options.owner}: ${response.status} ${envelope?.code ?? ''} ${envelope?.message ?? ''}`.trim(),
    );
  }
}
