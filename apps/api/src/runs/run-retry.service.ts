import { Injectable } from '@nestjs/common';
import { RunsRepository } from '@svc/persistence';
import { JobLifecycle } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { RunOverridesValidator } from '../jobs/run-overrides.validator';
import { RunResponse, toRunResponse } from './runs.mapper';

/**
 * `POST /runs/{id}/retry` (decisions.md → Manual retry): the retry itself is
 * `JobLifecycle.retryRun` (one per occurrence, opened like a trigger); this maps its run.
 */
@Injectable()
export class RunRetryService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly overrides: RunOverridesValidator,
  ) {}

  async retry(auth: AuthContext, id: string, overrides?: Record<string, unknown>): Promise<RunResponse> {
    const { run, inserted } = await this.lifecycle.retryRun(auth.workspaceId, id, auth.actor, {}, (job) =>
      this.overrides.validate(job, overrides),
    );
    // A retry that existed already may have made attempts; a new one has none.
    return toRunResponse(run, inserted ? [] : await this.runs.listAttempts(auth.workspaceId, run.id));
  }
}

/**
 * `POST /runs/{id}/cancel`: the cancel itself is `JobLifecycle.cancelRun` (its
 * workflow cancelled, its row closed, audited `run.cancel`); this maps the cancelled run.
 */
@Injectable()
export class RunCancelService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly lifecycle: JobLifecycle,
  ) {}

  async cancel(auth: AuthContext, id: string): Promise<RunResponse> {
    const run = await this.lifecycle.cancelRun(auth.workspaceId, id, auth.actor);
    return toRunResponse(run, await this.runs.listAttempts(auth.workspaceId, run.id));
  }
}
