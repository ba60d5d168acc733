import { Inject, Injectable } from '@nestjs/common';
import { ScheduledJobsService } from './scheduled-jobs.service';

/**
 * A `@nestjs/terminus` health indicator without a dependency on terminus: `isHealthy()` returns
 * terminus's result shape when the set is applied and throws an error terminus recognises
 * (`isHealthCheckError`, `causes`) while it is not (service unreachable, declaration refused).
 *
 *   this.health.check([() => this.scheduledJobs.isHealthy()])
 */
@Injectable()
export class ScheduledJobsHealthIndicator {
  constructor(@Inject(ScheduledJobsService) private readonly jobs: ScheduledJobsService) {}

  async isHealthy(key = 'scheduled-jobs'): Promise<Record<string, Record<string, unknown>>> {
    const state = this.jobs.state;
    if (state.status === 'applied') {
      return { [key]: { status: 'up', applied_at: state.at.toISOString() } };
    }
    const details =
      state.status === 'pending'
        ? { status: 'down', reason: 'not applied yet', attempts: state.attempts, last_error: state.lastError }
        : { status: 'down', reason: state.error };
    const causes = { [key]: details };
    throw Object.assign(new Error(`scheduled jobs: ${String(details.reason)}`), { isHealthCheckError: true, causes });
  }
}
