import type { JobWorkflowGateway, RunWorkflowView } from '@svc/orchestration';
import type { JobSnapshot, RunWorkflowInput } from '@svc/workflow-contract/definitions';

/** Temporal as the lifecycle sees it: what reached it, and whether it is reachable. */
export class FakeTemporal {
  down = false;
  /** While set, a signal waits for it: a slow Temporal. */
  slow: Promise<void> | null = null;
  readonly snapshots: JobSnapshot[] = [];
  readonly deleted: string[] = [];
  readonly cancelled: string[] = [];
  readonly started: RunWorkflowInput[] = [];
  /** What `describeRun` answers per run id (none: no such workflow), and the ids it was asked. */
  readonly runViews = new Map<string, RunWorkflowView>();
  readonly described: string[] = [];

  readonly gateway = {
    upsertJob: async (snapshot: JobSnapshot) => {
      await this.slow;
      this.reach(this.snapshots, snapshot);
    },
    deleteJob: async (jobId: string) => this.reach(this.deleted, jobId),
    cancelRun: async (runId: string) => this.reach(this.cancelled, runId),
    startRun: async (input: RunWorkflowInput) => this.reach(this.started, input),
    describeRun: async (runId: string) => {
      this.reach(this.described, runId);
      return this.runViews.get(runId) ?? null;
    },
  };

  /** The gateway typed as `JobLifecycle` takes it. */
  get typedGateway(): JobWorkflowGateway {
    return this.gateway as unknown as JobWorkflowGateway;
  }

  /** The states and revisions the job's workflow was told, in order. */
  toldOf(jobId: string): Array<{ state: string; revision: number; version: number }> {
    return this.snapshots
      .filter((s) => s.jobId === jobId)
      .map(({ state, revision, version }) => ({ state, revision, version }));
  }

  /** A call that reached Temporal: recorded in `calls`; while it is down, it throws instead. */
  private reach<T>(calls: T[], call: T): void {
    if (this.down) {
      throw new Error('temporal unavailable');
    }
    calls.push(call);
  }
}
