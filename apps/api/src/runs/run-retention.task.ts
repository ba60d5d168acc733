import { Injectable } from '@nestjs/common';
import { purgeExpiredRuns } from '@svc/orchestration';
import { RunsRepository } from '@svc/persistence';
import { RetentionTask } from '../common/periodic-purge';

/** First purge three minutes after start-up (apart from the audit and body purges), then hourly. */
export const RUN_PURGE_FIRST_DELAY_MS = 180_000;

/** Enforces `runs.retention` (default 30 days; a plan's `run_retention`) from every API process. */
@Injectable()
export class RunRetentionTask extends RetentionTask(
  'runs',
  RUN_PURGE_FIRST_DELAY_MS,
  RunsRepository,
  async (runs, config, now) => {
    const { deleted, scopes, truncated } = await purgeExpiredRuns(runs, config, now);
    const detail = scopes
      .map(
        (s) =>
          `${s.deleted} finished before ${s.cutoff.toISOString()}${s.plans ? ` (plans ${s.plans.join(', ')})` : ''}`,
      )
      .join('; ');
    return {
      count: deleted,
      summary: `deleted ${deleted} runs and their attempts: ${detail}${truncated ? '; more left for the next purge' : ''}`,
    };
  },
) {}
