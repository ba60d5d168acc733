import type {
  AuditRepository,
  JobEntity,
  JobsRepository,
  JobState,
  RunEntity,
  RunListFilter,
  RunsRepository,
} from '@svc/persistence';
import type { AlertChannelsRepository, AlertRulesRepository, CalendarsRepository } from '@svc/persistence';
import type { IdempotencyRepository, OperationsRepository, SecretsRepository } from '@svc/persistence';
import type { SessionsRepository, UsersRepository } from '@svc/persistence';
import type { Transactions, WorkspacesRepository } from '@svc/persistence';
import { newId } from '@svc/workflow-contract/ids';
import { JOB_KEY_CONSTRAINT, type JobListFilter, type JobMatchFilter, type LatestRun } from '@svc/persistence';
import type { RecoverableRunFilter, WorkspaceEntity } from '@svc/persistence';
import { type DataSource, QueryFailedError } from 'typeorm';
import { jobSettings, KIT_WORKSPACE } from './fixtures';
import {
  alertChannelsStore,
  alertRulesStore,
  calendarsStore,
  idempotencyStore,
  type IdempotencyRow,
  operationsStore,
  secretsStore,
  sessionsStore,
  usersStore,
} from './stores';

/** An audit entry as `AuditRepository.insert` writes it. */
export interface AuditRow {
  workspaceId: string;
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

/**
 * The rows a transaction may change; restored when the transaction throws. `extra` holds the
 * tables a spec adds for its own repositories (`InMemoryDatabase.table`).
 */
export interface Tables {
  jobs: Map<string, JobEntity>;
  runs: Map<string, RunEntity>;
  audit: AuditRow[];
  usage: Map<string, number>;
  extra: Record<string, Map<string, unknown>>;
}

/**
 * PostgreSQL as the services see it through their repositories: jobs, runs, monthly usage, the
 * audit log and workspaces, with transactions that roll every table back when the work throws.
 * The repositories implement the methods the lifecycle and the API services call, with the
 * workspace scoping of the real ones (another workspace's row is not there). Cast them to the
 * repository types with `as never` (or `repo<T>()`) where a constructor wants them.
 */
export class InMemoryDatabase {
  tables: Tables = { jobs: new Map(), runs: new Map(), audit: [], usage: new Map(), extra: {} };
  /** Workspace id → its plan name; a workspace not here has `defaultPlan` (none: the configuration's default). */
  readonly plans = new Map<string, string>();
  /** The number of transactions run, committed or not. */
  transactionsRun = 0;

  constructor(private readonly defaultPlan = '') {}

  readonly dataSource = {
    transaction: async <T>(work: (manager: unknown) => Promise<T>): Promise<T> => {
      this.transactionsRun += 1;
      const before = structuredClone(this.tables);
      try {
        return await work({});
      } catch (err) {
        this.tables = before;
        throw err;
      }
    },
  };

  /** `Transactions` over the same rollback. */
  readonly transactions = {
    run: <T>(work: (tx: never) => Promise<T>) => this.dataSource.transaction((manager) => work(manager as never)),
  };

  /** A table of a spec's own (rolled back with the rest): read it through this on every access. */
  table<T>(name: string): Map<string, T> {
    this.tables.extra[name] ??= new Map();
    return this.tables.extra[name] as Map<string, T>;
  }

  readonly jobs = {
    getById: async (workspaceId: string, id: string) => this.job(workspaceId, id),
    getForUpdate: async (workspaceId: string, id: string) => this.job(workspaceId, id),
    getWithSigningSecretsForUpdate: async (workspaceId: string, id: string) => this.job(workspaceId, id),
    setSigningSecrets: async (workspaceId: string, id: string, secrets: JobEntity['signingSecrets']) => {
      this.tables.jobs.get(id)!.signingSecrets = secrets;
    },
    findByIdUnscoped: async (id: string) => this.copy(this.tables.jobs.get(id)),
    getWithSigningSecrets: async (workspaceId: string, id: string) => this.job(workspaceId, id),
    /** `JobsRepository.setOccurrenceSkip`: a mark set (older ones pruned) or removed on the row. */
    setOccurrenceSkip: async (
      workspaceId: string,
      id: string,
      at: string,
      skip: { note: string; created_at: string } | null,
      pruneBefore: Date,
    ) => {
      const job = this.tables.jobs.get(id);
      if (!job || job.workspaceId !== workspaceId) {
        return false;
      }
      const skips = { ...(job.occurrenceSkips ?? {}) };
      if (skip === null) {
        if (!(at in skips)) {
          return false;
        }
        delete skips[at];
      } else {
        for (const key of Object.keys(skips)) {
          if (Date.parse(key) < pruneBefore.getTime()) {
            delete skips[key];
          }
        }
        skips[at] = skip;
      }
      job.occurrenceSkips = skips;
      return true;
    },
    getByKey: async (workspaceId: string, key: string): Promise<JobEntity | null> =>
      this.jobsWhere((job) => job.workspaceId === workspaceId && job.key === key)[0] ?? null,
    /** `JobsRepository.list`: newest first (ids sort by creation time); `q` matches name and key. */
    list: async (workspaceId: string, filter: JobListFilter) =>
      this.jobsWhere(
        (job) =>
          job.workspaceId === workspaceId &&
          (filter.state === undefined || job.state === filter.state) &&
          (filter.tag === undefined || job.tags.includes(filter.tag)) &&
          (filter.key === undefined || job.key === filter.key) &&
          (filter.managed_by === undefined || job.managedBy === filter.managed_by) &&
          (filter.q === undefined || `${job.name} ${job.key ?? ''}`.toLowerCase().includes(filter.q.toLowerCase())) &&
          (filter.beforeId === undefined || job.id < filter.beforeId),
      )
        .reverse()
        .slice(0, filter.limit),
    listForApply: async (workspaceId: string, keys: string[], managedBy: string | null) =>
      this.jobsWhere(
        (job) =>
          job.workspaceId === workspaceId &&
          ((job.key !== null && keys.includes(job.key)) || (managedBy !== null && job.managedBy === managedBy)),
      ),
    lockApply: async () => undefined,
    /** `JobsRepository.listMatching` (bulk actions): id order, at most `limit`. */
    listMatching: async (workspaceId: string, filter: JobMatchFilter, limit: number) =>
      this.jobsWhere(
        (job) =>
          job.workspaceId === workspaceId &&
          (filter.ids === undefined || filter.ids.includes(job.id)) &&
          (filter.tags ?? []).every((tag) => job.tags.includes(tag)) &&
          (filter.keyPrefix === undefined || (job.key ?? '').startsWith(filter.keyPrefix)) &&
          (filter.managedBy === undefined || job.managedBy === filter.managedBy) &&
          (filter.state === undefined || job.state === filter.state) &&
          (filter.urlContains === undefined ||
            (job.sinkKind === 'webhook' &&
              String(job.sinkConfig.url ?? '')
                .toLowerCase()
                .includes(filter.urlContains.toLowerCase()))),
      ).slice(0, limit),
    findMany: async (workspaceId: string, ids: string[]) =>
      ids.map((id) => this.job(workspaceId, id)).filter((job): job is JobEntity => job !== null),
    raiseRevisions: async (workspaceId: string, ids: string[]) =>
      ids.flatMap((id) => {
        const job = this.tables.jobs.get(id);
        if (!job || job.workspaceId !== workspaceId) {
          return [];
        }
        job.revision += 1;
        return [{ ...job }];
      }),
    lockWorkspaceCreates: async () => undefined,
    countInWorkspace: async (workspaceId: string) =>
      [...this.tables.jobs.values()].filter((job) => job.workspaceId === workspaceId).length,
    insert: async (rows: JobEntity | JobEntity[]) => {
      const jobs = Array.isArray(rows) ? rows : [rows];
      const taken = jobs.find(
        (job, i) =>
          job.key &&
          (this.jobsWhere((row) => row.workspaceId === job.workspaceId && row.key === job.key).length > 0 ||
            jobs.slice(0, i).some((other) => other.workspaceId === job.workspaceId && other.key === job.key)),
      );
      if (taken) {
        // One statement: nothing of it is written.
        throw new QueryFailedError(
          'INSERT INTO jobs',
          [],
          Object.assign(new Error('duplicate key'), {
            code: '23505',
            constraint: JOB_KEY_CONSTRAINT,
            detail: `Key (workspace_id, key)=(${taken.workspaceId}, ${taken.key}) already exists.`,
          }),
        );
      }
      for (const job of jobs) {
        job.createdAt = job.updatedAt = new Date();
        this.tables.jobs.set(job.id, { ...job });
      }
    },
    save: async (job: JobEntity) => {
      this.tables.jobs.set(job.id, { ...job, updatedAt: new Date() });
      return job;
    },
    delete: async (workspaceId: string, id: string) => this.tables.jobs.delete(id),
    transitionState: async (id: string, change: Parameters<JobsRepository['transitionState']>[1]) => {
      const job = this.tables.jobs.get(id);
      if (!job || job.state !== change.from || job.revision !== change.revision) {
        return null;
      }
      job.state = change.to;
      job.revision = change.nextRevision;
      if (change.disabledReason !== undefined) {
        job.disabledReason = change.disabledReason;
      }
      if (change.resetFailures) {
        job.consecutiveFailures = 0;
      }
      return this.copy(job);
    },
  };

  readonly runs = {
    getById: async (workspaceId: string, id: string) =>
      this.run((run) => run.workspaceId === workspaceId && run.id === id),
    findByIdUnscoped: async (id: string) => this.run((run) => run.id === id),
    findManualRetry: async (workspaceId: string, jobId: string, scheduledAt: Date) =>
      this.run(
        (run) =>
          run.workspaceId === workspaceId &&
          run.jobId === jobId &&
          run.trigger === 'retry_manual' &&
          run.scheduledAt.getTime() === scheduledAt.getTime(),
      ),
    monthlyUsage: async (workspaceId: string, month: string) => this.tables.usage.get(`${workspaceId}/${month}`) ?? 0,
    openRuns: async (rows: Array<Partial<RunEntity> & { id: string; scheduledAt: Date | string }>, claimedAt: Date) => {
      for (const row of rows) {
        this.addRun({ ...row, scheduledAt: new Date(row.scheduledAt), claimedAt });
      }
      return rows.map((row) => ({ requestedId: row.id, id: row.id, status: row.status, inserted: true }));
    },
    openManualRetry: async (
      row: { id: string; workspaceId: string; jobId: string; jobVersion: number; scheduledAt: Date; retryOf: string },
      claimedAt: Date,
    ) => {
      const existing = await this.runs.findManualRetry(row.workspaceId, row.jobId, row.scheduledAt);
      if (existing) {
        return { run: existing, inserted: false };
      }
      return {
        run: this.addRun({ ...row, trigger: 'retry_manual', status: 'running', claimedAt }),
        inserted: true,
      };
    },
    deleteUnstarted: async (workspaceId: string, id: string) => {
      const run = this.tables.runs.get(id);
      if (!run || run.status !== 'running' || run.attemptsCount > 0) {
        return false;
      }
      this.tables.runs.delete(id);
      const month = `${workspaceId}/${run.scheduledAt.toISOString().slice(0, 7)}`;
      this.tables.usage.set(month, Math.max(0, (this.tables.usage.get(month) ?? 0) - 1));
      return true;
    },
    listInFlightForJob: async (workspaceId: string, jobId: string) =>
      [...this.tables.runs.values()].filter(
        (run) =>
          run.workspaceId === workspaceId &&
          run.jobId === jobId &&
          (run.status === 'running' || run.status === 'deferred'),
      ),
    /** `RunsRepository.list` (tags left out): the workspace's runs, newest first unless `oldestFirst`. */
    list: async (workspaceId: string, filter: RunListFilter) => {
      const newestFirst = (a: RunEntity, b: RunEntity) =>
        b.scheduledAt.getTime() - a.scheduledAt.getTime() || b.id.localeCompare(a.id);
      const after = filter.after;
      return [...this.tables.runs.values()]
        .filter(
          (run) =>
            run.workspaceId === workspaceId &&
            (filter.jobId === undefined || run.jobId === filter.jobId) &&
            (filter.status === undefined || run.status === filter.status) &&
            (filter.statuses === undefined || filter.statuses.includes(run.status)) &&
            (filter.trigger === undefined || run.trigger === filter.trigger) &&
            (!filter.slaBreached || run.slaBreached) &&
            (filter.from === undefined || run.scheduledAt >= filter.from) &&
            (filter.to === undefined || run.scheduledAt < filter.to) &&
            (after === undefined ||
              newestFirst({ scheduledAt: after.scheduledAt, id: after.id } as RunEntity, run) < 0),
        )
        .sort((a, b) => (filter.oldestFirst ? -newestFirst(a, b) : newestFirst(a, b)))
        .slice(0, filter.limit)
        .map((run) => ({ ...run }));
    },
    /** `RunsRepository.latestForJobs` (the SLA rule left out: `slaBreached` as stored). */
    latestForJobs: async (workspaceId: string, jobIds: string[]) => {
      const latest = new Map<string, LatestRun>();
      for (const jobId of jobIds) {
        const [run] = await this.runs.list(workspaceId, { jobId, limit: 1 });
        if (run) {
          const { id, status, trigger, scheduledAt, startedAt, attemptsCount, nextAttemptAt, slaBreached } = run;
          latest.set(jobId, { id, status, trigger, scheduledAt, startedAt, attemptsCount, nextAttemptAt, slaBreached });
        }
      }
      return latest;
    },
    /** `RunsRepository.stats` of the job's runs since `since` (no start lag kept: p95 null). */
    stats: async (workspaceId: string, jobId: string, since: Date) => {
      const runs = (await this.runs.list(workspaceId, { jobId, from: since, limit: Infinity })) as RunEntity[];
      return {
        runs: runs.length,
        succeeded: runs.filter((run) => run.status === 'succeeded').length,
        failed: runs.filter((run) => run.status === 'failed').length,
        sla_breached: runs.filter((run) => run.slaBreached).length,
        p95_start_lag_ms: null,
      };
    },
    /** `RunsRepository.listRecoverable`: failed runs of existing jobs without a manual retry, oldest first. */
    listRecoverable: async (workspaceId: string, filter: RecoverableRunFilter, limit: number) =>
      [...this.tables.runs.values()]
        .filter((run) => {
          const job = this.tables.jobs.get(run.jobId);
          const retried = [...this.tables.runs.values()].some(
            (m) =>
              m.jobId === run.jobId &&
              m.trigger === 'retry_manual' &&
              m.scheduledAt.getTime() === run.scheduledAt.getTime(),
          );
          return (
            run.workspaceId === workspaceId &&
            run.status === 'failed' &&
            job?.workspaceId === workspaceId &&
            !retried &&
            (filter.jobIds === undefined || filter.jobIds.includes(run.jobId)) &&
            (filter.tags ?? []).every((tag) => job.tags.includes(tag)) &&
            (filter.urlContains === undefined ||
              (job.sinkKind === 'webhook' &&
                String(job.sinkConfig.url ?? '')
                  .toLowerCase()
                  .includes(filter.urlContains.toLowerCase()))) &&
            (filter.from === undefined || run.scheduledAt >= filter.from) &&
            (filter.to === undefined || run.scheduledAt < filter.to)
          );
        })
        .sort((a, b) => a.scheduledAt.getTime() - b.scheduledAt.getTime() || a.id.localeCompare(b.id))
        .slice(0, limit)
        .map((run) => {
          const job = this.tables.jobs.get(run.jobId)!;
          return {
            id: run.id,
            jobId: run.jobId,
            scheduledAt: run.scheduledAt,
            sinkKind: job.sinkKind,
            sinkConfig: job.sinkConfig,
          };
        }),
    /** The attempts of a run: none are kept here. */
    listAttempts: async () => [],
    // RunsRepository.close: the run closed once, and a succeeded / failed outcome folded into its job.
    close: async (change: { runId: string; status: RunEntity['status']; finishedAt: Date }) => {
      const run = this.tables.runs.get(change.runId);
      if (!run || run.finishedAt) {
        return null;
      }
      Object.assign(run, { status: change.status, finishedAt: change.finishedAt });
      const job = this.tables.jobs.get(run.jobId);
      let outcome = null;
      if (job && (change.status === 'succeeded' || change.status === 'failed')) {
        const previousFailures = job.consecutiveFailures;
        job.lastRunAt = run.scheduledAt;
        job.lastRunStatus = change.status;
        job.consecutiveFailures = change.status === 'failed' ? job.consecutiveFailures + 1 : 0;
        outcome = {
          previousFailures,
          consecutiveFailures: job.consecutiveFailures,
          state: job.state,
          autoDisableThreshold: job.autoDisableThreshold,
        };
      }
      return { run: { ...run }, slaThresholdMs: job?.slaThresholdMs ?? 300_000, outcome };
    },
  };

  readonly audit = {
    insert: async (workspaceId: string, entry: Omit<AuditRow, 'workspaceId'>) => {
      this.tables.audit.push({ workspaceId, ...entry });
    },
  };

  /** `SecretsRepository` (test/kit/stores.ts). */
  readonly secrets = secretsStore(this);
  /** `CalendarsRepository` (test/kit/stores.ts). */
  readonly calendars = calendarsStore(this);
  /** `AlertChannelsRepository` and `AlertRulesRepository` (test/kit/stores.ts). */
  readonly alertChannels = alertChannelsStore(this);
  readonly alertRules = alertRulesStore(this);
  /** `OperationsRepository` (test/kit/stores.ts). */
  readonly operations = operationsStore(this);
  /** `UsersRepository` and `SessionsRepository` (test/kit/stores.ts). */
  readonly users = usersStore(this);
  readonly sessions = sessionsStore(this);

  /** Idempotency records (written outside any transaction, as the real repository writes them). */
  readonly idempotencyRecords = new Map<string, IdempotencyRow>();
  /** `IdempotencyRepository` over `idempotencyRecords` (test/kit/stores.ts). */
  readonly idempotency = idempotencyStore(this.idempotencyRecords);

  /**
   * `WorkspacesRepository`: a workspace added with `addWorkspace` as stored; any other id reads as
   * a workspace of that id on its plan (`plans`, else the default), so specs need not add one.
   */
  readonly workspaces = {
    findById: async (id: string) => this.workspace(id),
    findByIdForUpdate: async (id: string) => this.workspace(id),
    create: async (input: { name: string; slug: string; plan: string }) => this.addWorkspace(newId('workspace'), input),
    findOrCreateBySlug: async (input: { name: string; slug: string; plan: string }) => {
      const existing = [...this.table<WorkspaceEntity>('workspaces').values()].find((w) => w.slug === input.slug);
      return existing
        ? { workspace: { ...existing }, created: false }
        : { workspace: this.addWorkspace(newId('workspace'), input), created: true };
    },
    updateProfile: async (
      id: string,
      changes: { name?: string; slug?: string; temporalWorkflowTaskQueues?: string[] | null },
    ) => {
      const rows = this.table<WorkspaceEntity>('workspaces');
      if (changes.slug !== undefined && [...rows.values()].some((w) => w.id !== id && w.slug === changes.slug)) {
        throw new QueryFailedError(
          'UPDATE workspaces',
          [],
          Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'uq_workspaces_slug' }),
        );
      }
      const row = rows.get(id)!;
      Object.assign(row, Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)));
      return { ...row };
    },
  };

  /** A workspace row (its slug the id, on the default plan, unless `extra` says otherwise). */
  addWorkspace(id: string, extra: Partial<WorkspaceEntity> = {}): WorkspaceEntity {
    const row = {
      id,
      name: id,
      slug: id.replace(/_/g, '-'),
      plan: this.plans.get(id) ?? this.defaultPlan,
      suspendedAt: null,
      temporalWorkflowTaskQueues: null,
      createdAt: new Date('2026-01-01T00:00:00Z'),
      ...extra,
    } as WorkspaceEntity;
    this.table<WorkspaceEntity>('workspaces').set(id, row);
    return { ...row };
  }

  /** The repositories typed as the services' constructors take them. */
  get repositories(): {
    dataSource: DataSource;
    transactions: Transactions;
    jobs: JobsRepository;
    runs: RunsRepository;
    audit: AuditRepository;
    workspaces: WorkspacesRepository;
    idempotency: IdempotencyRepository;
    secrets: SecretsRepository;
    calendars: CalendarsRepository;
    alertChannels: AlertChannelsRepository;
    alertRules: AlertRulesRepository;
    operations: OperationsRepository;
    users: UsersRepository;
    sessions: SessionsRepository;
  } {
    return {
      dataSource: this.dataSource as unknown as DataSource,
      transactions: this.transactions as unknown as Transactions,
      jobs: this.jobs as unknown as JobsRepository,
      runs: this.runs as unknown as RunsRepository,
      audit: this.audit as unknown as AuditRepository,
      workspaces: this.workspaces as unknown as WorkspacesRepository,
      idempotency: this.idempotency as unknown as IdempotencyRepository,
      secrets: this.secrets as unknown as SecretsRepository,
      calendars: this.calendars as unknown as CalendarsRepository,
      alertChannels: this.alertChannels as unknown as AlertChannelsRepository,
      alertRules: this.alertRules as unknown as AlertRulesRepository,
      operations: this.operations as unknown as OperationsRepository,
      users: this.users as unknown as UsersRepository,
      sessions: this.sessions as unknown as SessionsRepository,
    };
  }

  /** The audit entries written, without the workspace id (all of one workspace, or of `workspaceId`). */
  audited(workspaceId?: string): Array<Omit<AuditRow, 'workspaceId'>> {
    return this.tables.audit
      .filter((row) => workspaceId === undefined || row.workspaceId === workspaceId)
      .map(({ workspaceId: _ws, ...entry }) => entry);
  }

  /** A job row as a create would write it, in `state`. */
  addJob(state: JobState, extra: Partial<JobEntity> = {}): JobEntity {
    const job = {
      ...jobSettings(),
      id: newId('job', Date.parse('2026-01-01T00:00:00Z') + this.tables.jobs.size),
      workspaceId: KIT_WORKSPACE,
      key: null,
      managedBy: null,
      state,
      disabledReason: state === 'disabled' ? 'auto_disabled: 3 consecutive failed runs' : null,
      consecutiveFailures: state === 'disabled' ? 3 : 0,
      nextRunAt: null,
      lastRunAt: null,
      lastRunStatus: null,
      version: 4,
      revision: 7,
      signingSecrets: [{ secret: 'whsec_old', expires_at: null }],
      createdAt: new Date('2026-01-01T00:00:00Z'),
      updatedAt: new Date('2026-01-01T00:00:00Z'),
      ...extra,
    } as JobEntity;
    this.tables.jobs.set(job.id, job);
    return { ...job };
  }

  addRun(row: Partial<RunEntity> & { id: string }): RunEntity {
    const run = {
      workspaceId: KIT_WORKSPACE,
      trigger: 'schedule',
      status: 'running',
      attemptsCount: 0,
      jobVersion: 1,
      scheduledAt: new Date('2026-01-01T00:00:00Z'),
      startedAt: null,
      finishedAt: null,
      retryOf: null,
      slaBreached: false,
      ...row,
    } as RunEntity;
    this.tables.runs.set(run.id, run);
    const month = `${run.workspaceId}/${run.scheduledAt.toISOString().slice(0, 7)}`;
    this.tables.usage.set(month, (this.tables.usage.get(month) ?? 0) + 1);
    return { ...run };
  }

  stored(id: string): JobEntity | undefined {
    return this.tables.jobs.get(id);
  }

  private workspace(id: string): WorkspaceEntity {
    const row = this.table<WorkspaceEntity>('workspaces').get(id);
    return row ? { ...row } : ({ id, plan: this.plans.get(id) ?? this.defaultPlan } as WorkspaceEntity);
  }

  /** Copies of the jobs that match, in id order. */
  private jobsWhere(match: (job: JobEntity) => boolean): JobEntity[] {
    return [...this.tables.jobs.values()]
      .filter(match)
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((job) => ({ ...job }));
  }

  private job(workspaceId: string, id: string): JobEntity | null {
    const job = this.tables.jobs.get(id);
    return job && job.workspaceId === workspaceId ? { ...job } : null;
  }

  private run(match: (run: RunEntity) => boolean): RunEntity | null {
    const run = [...this.tables.runs.values()].find(match);
    return run ? { ...run } : null;
  }

  private copy(job: JobEntity | undefined): JobEntity | null {
    return job ? { ...job } : null;
  }
}
