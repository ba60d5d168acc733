import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ScheduledJobsConfigError } from './errors';
import { type ApplyState, JobApplier } from './job-applier';
import { type ApplyJobEntry, buildJobSet, durationMs } from './job-set';
import { SCHEDULED_JOBS_OPTIONS, type ScheduledJobsModuleOptions } from './options';
import { DeliveryReceiver, type JobHandler } from './receiver';
import { mountReceiver } from './route';
import { type ExploredJob, ScheduledJobsExplorer } from './scheduled-jobs.explorer';
import { deriveSigningSecret } from './verify';

/** The service's default per-attempt timeout (spec: Job.timeout). */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The module's one job: discover the `@ScheduledJob` methods, mount the receiver route (module
 * init, before the router's not-found handler and before the server listens), apply the set at
 * bootstrap, and stop retrying at shutdown.
 */
@Injectable()
export class ScheduledJobsService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ScheduledJobs');
  private readonly applier: JobApplier;
  private readonly secrets: string[];
  private jobs: ExploredJob[] = [];
  private entries: ApplyJobEntry[] = [];

  constructor(
    @Inject(SCHEDULED_JOBS_OPTIONS) private readonly options: ScheduledJobsModuleOptions,
    private readonly explorer: ScheduledJobsExplorer,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.secrets =
      options.signingSecrets && options.signingSecrets.length > 0
        ? options.signingSecrets
        : [deriveSigningSecret(options.apiKey, options.owner)];
    this.applier = new JobApplier({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      owner: options.owner,
      initialDelayMs: options.retry?.initialDelayMs,
      maxDelayMs: options.retry?.maxDelayMs,
      log: (level, message) => this.logger[level](message),
    });
  }

  /** What the health indicator reports. */
  get state(): ApplyState {
    return this.applier.current;
  }

  onModuleInit(): void {
    this.jobs = this.explorer.explore();
    this.entries = buildJobSet(this.jobs, this.options.receiver.publicUrl, this.secrets[0]);
    const handlers = new Map<string, JobHandler>(
      this.jobs.map((job) => {
        const timeoutMs = job.options.timeout === undefined ? DEFAULT_TIMEOUT_MS : durationMs(job.options.timeout);
        if (timeoutMs === null) {
          throw new ScheduledJobsConfigError(`${job.methodName}: timeout "${job.options.timeout}" is not a duration`);
        }
        return [job.options.key, { key: job.options.key, methodName: job.methodName, timeoutMs, call: job.call }];
      }),
    );
    const receiver = new DeliveryReceiver(handlers, this.secrets, {
      replayCacheSize: this.options.replayCacheSize,
      onError: (handler, error) =>
        this.logger.warn(`${handler.methodName} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) {
      throw new ScheduledJobsConfigError('ScheduledJobsModule needs an HTTP application (NestFactory.create)');
    }
    mountReceiver(adapter, this.options.receiver.path, receiver);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.applier.start(this.jobs, this.entries);
  }

  onApplicationShutdown(): void {
    this.applier.stop();
  }
}
