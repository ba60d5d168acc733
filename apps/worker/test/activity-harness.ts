/**
 * What the activity int-specs share: a scratch PostgreSQL database cloned from the run's migrated
 * template, the real repositories and JobLifecycle over it, a JobWorkflowGateway over a real
 * Temporal client (its own random task queue on the shared dev server, no worker polling it), a
 * loopback webhook receiver, and row builders. Activities run in `MockActivityEnvironment`.
 */
import { type AppConfig, buildConfig } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import { secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import {
  AuditRepository,
  createDataSource,
  JobEntity,
  JobsRepository,
  type OpenRunRow,
  RunsRepository,
  SecretsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import type { RunActivities } from '@svc/workflow-contract/activity-types';
import type { RunWorkflowInput } from '@svc/workflow-contract/definitions';
import type { StoredRetryPolicy } from '@svc/workflow-contract/run-rules';
import { JobLifecycle, JobWorkflowGateway, SinkSender } from '@svc/orchestration';
import { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createTestDatabase } from '../../../test/utils/database';
import { WebhookReceiver } from '../../../test/utils/receiver';
import { TEST_SECRETS_ENCRYPTION_KEY } from '../../../test/utils/stack';
import { createRunActivities } from '../src/activities/run.activities';

/** Retry policy of jobs built here unless told otherwise: 3 attempts, 1 s, 2 s, no jitter. */
export const TEST_RETRY: StoredRetryPolicy = {
  max_attempts: 3,
  backoff: 'exponential',
  initial_interval_ms: 1_000,
  max_interval_ms: 10_000,
  multiplier: 2,
  jitter: 0,
};

export interface ActivityHarness {
  ds: DataSource;
  /** The scratch database, for a second DataSource with other pool settings. */
  databaseUrl: string;
  config: AppConfig;
  jobs: JobsRepository;
  runs: RunsRepository;
  workspaces: WorkspacesRepository;
  lifecycle: JobLifecycle;
  gateway: JobWorkflowGateway;
  /** The worker's sink sender over this database (secrets under the test key). */
  sender: SinkSender;
  secrets: SecretsRepository;
  client: Client;
  taskQueue: string;
  receiver: WebhookReceiver;
  workspaceId: string;
  /** Run workflows this file started on the dev server (terminated on stop). */
  started: Set<string>;
  insertJob(overrides?: Partial<JobEntity>): Promise<JobEntity>;
  /** Writes a run row as the job workflow does (`running` unless told otherwise). */
  openRun(job: JobEntity, overrides?: Partial<OpenRunRow>): Promise<OpenRunRow & { id: string }>;
  stop(): Promise<void>;
}

/**
 * The run activities over the harness's repositories and sender (and its lifecycle unless
 * another is given): the real clock, random fixed at 0.5.
 */
export function runActivitiesOf(h: ActivityHarness, lifecycle: JobLifecycle = h.lifecycle): RunActivities {
  return createRunActivities({
    jobs: h.jobs,
    runs: h.runs,
    lifecycle,
    sender: h.sender,
    config: h.config,
    clock: () => new Date(),
    random: () => 0.5,
  });
}

/** The run workflow's input for a run row: its scheduled occurrence, job version 1. */
export function runInputOf(row: {
  id: string;
  jobId: string;
  workspaceId: string;
  scheduledAt: string | Date;
}): RunWorkflowInput {
  return {
    runId: row.id,
    jobId: row.jobId,
    workspaceId: row.workspaceId,
    jobVersion: 1,
    scheduledAt: new Date(row.scheduledAt).toISOString(),
    trigger: 'schedule',
  };
}

/** Temporal's mock activity context; its logger is quiet (retryable outcomes log a warning). */
export const quietActivityEnvironment = () =>
  new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

export async function startActivityHarness(
  options: { config?: Record<string, unknown>; plan?: string } = {},
): Promise<ActivityHarness> {
  const db = await createTestDatabase();
  const taskQueue = `svc-activities-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const address = process.env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  const config = buildConfig(
    { secrets: { encryption_key: TEST_SECRETS_ENCRYPTION_KEY }, ...options.config },
    {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: taskQueue,
    },
  );
  const ds = await createDataSource(db.url).initialize();
  const jobs = new JobsRepository(ds);
  const runs = new RunsRepository(ds);
  const workspaces = new WorkspacesRepository(ds);
  // A NativeConnection, as the worker's eager gateway has: eager start needs one.
  const connection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const gateway = new JobWorkflowGateway(client, taskQueue);
  const lifecycle = new JobLifecycle({
    dataSource: ds,
    jobs,
    runs,
    audit: new AuditRepository(ds),
    workspaces,
    gateway,
    config,
  });
  const secrets = new SecretsRepository(ds);
  const sender = new SinkSender({ secrets, cipher: secretsCipherFromConfig(config), config });
  const receiver = await WebhookReceiver.start();
  receiver.respondWith((request) => {
    if (request.url.startsWith('/missing')) {
      return { status: 404, body: 'no such hook' };
    }
    if (request.url.startsWith('/busy')) {
      return { status: 503, body: 'busy' };
    }
    if (request.url.startsWith('/throttled')) {
      return { status: 429, headers: { 'retry-after': '3' } };
    }
    if (request.url.startsWith('/slow')) {
      return { status: 200, body: 'ok', delayMs: 2_000 };
    }
    return { status: 200, body: 'ok' };
  });
  const workspace = await workspaces.create({
    name: 'Activities',
    slug: `activities-${Math.random().toString(36).slice(2, 8)}`,
    plan: options.plan ?? config.default_plan,
  });
  const started = new Set<string>();
  let lastScheduledAt = 0;

  const harness: ActivityHarness = {
    ds,
    databaseUrl: db.url,
    config,
    jobs,
    runs,
    workspaces,
    lifecycle,
    gateway,
    sender,
    secrets,
    client,
    taskQueue,
    receiver,
    workspaceId: workspace.id,
    started,
    async insertJob(overrides = {}) {
      const anchor = new Date(Date.now() - 3_600_000);
      const job = ds.manager.create(JobEntity, {
        id: newId('job'),
        workspaceId: workspace.id,
        name: 'activity job',
        description: '',
        tags: [],
        scheduleExpr: 'every 1 hour',
        scheduleKind: 'natural',
        scheduleCanonical: 'every 1 hour',
        scheduleDescription: 'Every hour',
        scheduleTimezone: 'UTC',
        scheduleStartsAt: null,
        scheduleEndsAt: null,
        scheduleCount: null,
        scheduleAnchor: anchor,
        sinkKind: 'webhook',
        sinkConfig: { url: `${receiver.url}/ok` },
        retry: TEST_RETRY,
        timeoutMs: 5_000,
        slaThresholdMs: null,
        misfirePolicy: 'fire_once',
        overlapPolicy: 'allow',
        autoDisableThreshold: null,
        state: 'active',
        disabledReason: null,
        consecutiveFailures: 0,
        version: 1,
        revision: 1,
        signingSecrets: [{ secret: `whsec_${Buffer.from(newId('job')).toString('base64')}`, expires_at: null }],
        ...overrides,
      });
      await ds.manager.insert(JobEntity, job);
      return (await jobs.findByIdUnscoped(job.id))!;
    },
    async openRun(job, overrides = {}) {
      // Each row its own occurrence (one run per job and instant): the current second, or the
      // millisecond after the last one given out.
      lastScheduledAt = Math.max(Math.floor(Date.now() / 1_000) * 1_000, lastScheduledAt + 1);
      const row = {
        id: newId('run'),
        workspaceId: job.workspaceId,
        jobId: job.id,
        jobVersion: job.version,
        scheduledAt: new Date(lastScheduledAt).toISOString(),
        trigger: 'schedule' as const,
        status: 'running' as const,
        skipReason: null,
        ...overrides,
      };
      await runs.openRuns([row], new Date());
      return row;
    },
    async stop() {
      await Promise.all(
        [...started].map((id) =>
          client.workflow
            .getHandle(id)
            .terminate('activity int-spec cleanup')
            .catch(() => undefined),
        ),
      );
      await receiver.stop();
      await connection.close().catch(() => undefined);
      await ds.destroy();
      await db.drop();
    },
  };
  return harness;
}
