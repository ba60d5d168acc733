/** What the job workflow int-specs share (not a spec file): a job's snapshot and display as its row gives them. */
import type { JobDisplay, JobSnapshot } from '@svc/workflow-contract/definitions';

/**
 * An active natural-language job of `expr` (UTC, anchored at 2026-01-01, no bounds): fire_once
 * within a minute, overlapping runs allowed, unless `overrides` say otherwise.
 */
export function jobSnapshot(
  ids: { jobId: string; workspaceId: string },
  expr: string,
  overrides: Partial<JobSnapshot> = {},
): JobSnapshot {
  return {
    ...ids,
    revision: 1,
    version: 1,
    state: 'active',
    schedule: {
      expr,
      kind: 'natural', // as the row stores it: the detected kind
      timezone: 'UTC',
      startsAt: null,
      endsAt: null,
      count: null,
      anchor: '2026-01-01T00:00:00.000Z',
    },
    misfirePolicy: 'fire_once',
    misfireThresholdMs: 60_000,
    overlapPolicy: 'allow',
    ...overrides,
  };
}

/** A webhook job's display (3 attempts of 1 s unless `overrides` say otherwise). */
export function jobDisplay(overrides: Partial<JobDisplay> = {}): JobDisplay {
  return {
    name: 'n',
    schedule: 's',
    timezone: 'UTC',
    sink: 'webhook',
    target: 'POST h',
    maxAttempts: 3,
    timeoutMs: 1000,
    ...overrides,
  };
}
