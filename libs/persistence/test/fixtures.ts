import { newId } from '@svc/workflow-contract/ids';
import type { DataSource } from 'typeorm';
import type { WorkspaceEntity } from '../src/entities';
import { WorkspacesRepository } from '../src/repositories';

let workspaces = 0;

/** A new `self_hosted` workspace (slug `w-<n>`, unique in this test file). */
export function createWorkspace(ds: DataSource): Promise<WorkspaceEntity> {
  return new WorkspacesRepository(ds).create({ name: 'W', slug: `w-${++workspaces}`, plan: 'self_hosted' });
}

/** What an int-spec's job may set; the rest is an active hourly webhook job in UTC. */
export interface JobFixture {
  name?: string;
  timezone?: string;
  sinkKind?: string;
  sinkConfig?: unknown;
  state?: string;
  slaThresholdMs?: number | null;
  consecutiveFailures?: number;
  tags?: string[];
}

/** Inserts a job of `workspaceId` straight into `jobs` (no workflow); returns its id. */
export async function insertJob(ds: DataSource, workspaceId: string, job: JobFixture = {}): Promise<string> {
  const id = newId('job');
  await ds.query(
    `INSERT INTO jobs (id, workspace_id, name, schedule_expr, schedule_kind, schedule_canonical, schedule_description,
                       schedule_timezone, schedule_anchor, sink_kind, sink_config, retry, timeout_ms, misfire_policy,
                       overlap_policy, state, sla_threshold_ms, consecutive_failures, tags)
     VALUES ($1, $2, $3, 'every 1 hour', 'natural', 'FREQ=HOURLY', 'every hour', $4, now(), $5, $6, '{}', 30000,
             'fire_once', 'allow', $7, $8, $9, $10)`,
    [
      id,
      workspaceId,
      job.name ?? 'job',
      job.timezone ?? 'UTC',
      job.sinkKind ?? 'webhook',
      JSON.stringify(job.sinkConfig ?? { url: 'https://example.com' }),
      job.state ?? 'active',
      job.slaThresholdMs ?? null,
      job.consecutiveFailures ?? 0,
      job.tags ?? [],
    ],
  );
  return id;
}
