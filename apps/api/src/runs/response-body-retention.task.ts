import { Injectable } from '@nestjs/common';
import { purgeExpiredResponseBodies } from '@svc/orchestration';
import { RunsRepository } from '@svc/persistence';
import { RetentionTask } from '../common/periodic-purge';

/** First purge two minutes after start-up (apart from the audit purge), then hourly. */
export const BODY_PURGE_FIRST_DELAY_MS = 120_000;

/** Enforces `runs.body_retention` (default 7 days) from every API process. */
@Injectable()
export class ResponseBodyRetentionTask extends RetentionTask(
  'response bodies',
  BODY_PURGE_FIRST_DELAY_MS,
  RunsRepository,
  async (runs, config, now) => {
    const { cleared, cutoff } = await purgeExpiredResponseBodies(runs, config.runs.body_retention_ms, now);
    return { count: cleared, summary: `cleared ${cleared} of attempts finished before ${cutoff.toISOString()}` };
  },
) {}
