import { Injectable } from '@nestjs/common';
import { ScheduledJob, type ScheduledJobContext, type ScheduledJobOptions } from '@svc/nestjs';
import { CounterStore } from './counter.store';

export const HEARTBEAT: ScheduledJobOptions = { key: 'example.heartbeat', schedule: 'every 5 seconds' };
export const FLAKY: ScheduledJobOptions = {
  key: 'example.flaky',
  schedule: 'every 20 seconds',
  // Quick retries so the example shows them within a minute.
  retry: { max_attempts: 5, backoff: 'fixed', initial_interval: '1s' },
};

/** Two durable jobs on one provider: one every 5 seconds, one that fails twice per run then succeeds. */
@Injectable()
export class ReportsService {
  constructor(private readonly store: CounterStore) {}

  @ScheduledJob(HEARTBEAT)
  async heartbeat({ jobKey, runId, scheduledAt, attempt }: ScheduledJobContext): Promise<void> {
    await this.store.record({ jobKey, runId, scheduledAt, attempt, outcome: 'handled' });
  }

  @ScheduledJob(FLAKY)
  async flaky({ jobKey, runId, scheduledAt, attempt }: ScheduledJobContext): Promise<void> {
    if ((await this.store.failures(runId)) < 2) {
      await this.store.record({ jobKey, runId, scheduledAt, attempt, outcome: 'failed' });
      throw new Error(`flaky failure on attempt ${attempt}`); // a 500: retried by the job's policy
    }
    await this.store.record({ jobKey, runId, scheduledAt, attempt, outcome: 'handled' });
  }
}

/** The next release of the same provider: `flaky` is gone, so its job is pruned when it boots. */
@Injectable()
export class ReportsServiceNext {
  constructor(private readonly store: CounterStore) {}

  @ScheduledJob(HEARTBEAT)
  async heartbeat({ jobKey, runId, scheduledAt, attempt }: ScheduledJobContext): Promise<void> {
    await this.store.record({ jobKey, runId, scheduledAt, attempt, outcome: 'handled' });
  }
}
