import { type AppConfig, purgeInBatches } from '@svc/common';
import type { RunPurgeScope, RunsRepository } from '@svc/persistence';

/** Runs deleted per statement (their attempts with them): short transactions, however large the backlog. */
export const RUN_PURGE_BATCH = 2_000;
/** Statements per call at most (400k runs); the next call continues. */
export const RUN_PURGE_MAX_BATCHES = 200;

/** One retention class: the workspaces it covers and the finish time before which their runs go. */
export interface RunRetentionScope extends RunPurgeScope {
  retentionMs: number;
  cutoff: Date;
}

export interface RunPurgeResult {
  deleted: number;
  scopes: Array<RunRetentionScope & { deleted: number }>;
  /** True when the call stopped at `maxBatches` with rows possibly left for the next call. */
  truncated: boolean;
}

export interface RunPurgeOptions {
  batch?: number;
  maxBatches?: number;
  /** Pause between two statements, so the purge yields I/O to the live path (0 = none). */
  pauseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The retention classes of the config: plans with their own `run_retention` get a scope each
 * (plans sharing a value share one), and every other workspace (plans following `runs.retention`,
 * and plans the config does not name) falls under `runs.retention`. Without plan overrides this is
 * one scope over all workspaces, with no plan filter.
 */
export function runRetentionScopes(config: Pick<AppConfig, 'runs' | 'plans'>, now: Date): RunRetentionScope[] {
  const byRetention = new Map<number, string[]>();
  for (const [name, plan] of Object.entries(config.plans)) {
    if (plan.run_retention_ms !== null && plan.run_retention_ms !== config.runs.retention_ms) {
      byRetention.set(plan.run_retention_ms, [...(byRetention.get(plan.run_retention_ms) ?? []), name]);
    }
  }
  const cutoff = (ms: number) => new Date(now.getTime() - ms);
  const own = [...byRetention.entries()]
    .sort(([a], [b]) => a - b)
    .map(([ms, plans]): RunRetentionScope => ({ retentionMs: ms, cutoff: cutoff(ms), plans: plans.sort() }));
  const except = own.flatMap((scope) => scope.plans ?? []).sort();
  const rest: RunRetentionScope = {
    retentionMs: config.runs.retention_ms,
    cutoff: cutoff(config.runs.retention_ms),
    ...(except.length > 0 ? { exceptPlans: except } : {}),
  };
  return [...own, rest];
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Run retention (decisions.md → Response bodies; config `runs.retention`, default 30 days, and a
 * plan's `run_retention`): deletes the terminal runs that finished before their scope's cutoff,
 * with their attempts, in statements of `batch` runs until a statement deletes fewer (nothing
 * left) or `maxBatches` statements ran (the next call continues). Open runs are never deleted.
 * Monthly usage lives in `usage_counters`, so it does not drop. Idempotent and safe from several
 * processes at once (each statement skips rows another holds); the API runs it hourly
 * (`RunRetentionTask`).
 */
export async function purgeExpiredRuns(
  runs: Pick<RunsRepository, 'deleteFinishedBefore'>,
  config: Pick<AppConfig, 'runs' | 'plans'>,
  now: Date = new Date(),
  options: RunPurgeOptions = {},
): Promise<RunPurgeResult> {
  const batch = options.batch ?? RUN_PURGE_BATCH;
  const maxBatches = options.maxBatches ?? RUN_PURGE_MAX_BATCHES;
  const pauseMs = options.pauseMs ?? 0;
  const sleep = options.sleep ?? defaultSleep;
  let statements = 0;
  let truncated = false;
  const scopes: RunPurgeResult['scopes'] = [];
  for (const scope of runRetentionScopes(config, now)) {
    const { cutoff, plans, exceptPlans } = scope;
    const before = statements;
    const purged = await purgeInBatches((limit) => runs.deleteFinishedBefore(cutoff, limit, { plans, exceptPlans }), {
      batch,
      // The statement budget is the whole call's, shared by its scopes, and so is the pause.
      maxBatches: maxBatches - before,
      beforeBatch: async (index) => {
        if (before + index > 0 && pauseMs > 0) {
          await sleep(pauseMs);
        }
      },
    });
    statements += purged.batches;
    truncated ||= purged.truncated;
    scopes.push({ ...scope, deleted: purged.count });
  }
  return { deleted: scopes.reduce((sum, s) => sum + s.deleted, 0), scopes, truncated };
}
