import { type AppConfig, buildConfig } from '@svc/common';
import { BackgroundWork, createJobLifecycle, type JobLifecycle, type JobSettingsColumns } from '@svc/orchestration';
import { DEFAULT_STORED_RETRY } from '@svc/workflow-contract/run-rules';
import type { AuthContext } from '../../apps/api/src/auth/auth.decorators';
import type { FakeTemporal } from './fake-temporal';
import type { InMemoryDatabase } from './in-memory-database';

/** The workspace the kit's rows belong to unless told otherwise. */
export const KIT_WORKSPACE = 'ws_1';
/** Another workspace: its rows must be invisible to a caller of `KIT_WORKSPACE`. */
export const OTHER_WORKSPACE = 'ws_other';

/** The caller as the API's `AuthContext` carries it. */
export type KitAuth = AuthContext;

/** An API key caller of `workspaceId` with every scope. */
export function authFor(workspaceId = KIT_WORKSPACE, actor = 'key:key_1'): KitAuth {
  return { workspaceId, keyId: actor.slice(4), userId: null, scopes: ['*'], suspended: false, actor };
}

/** A job's settings columns as a create writes them (a webhook every hour), with `extra` over them. */
export function jobSettings(extra: Partial<JobSettingsColumns> = {}): JobSettingsColumns {
  return {
    name: 'nightly',
    description: '',
    tags: [],
    scheduleExpr: 'every 1 hour',
    scheduleKind: 'natural',
    scheduleCanonical: 'every 1h',
    scheduleDescription: 'Every hour',
    scheduleTimezone: 'UTC',
    scheduleStartsAt: null,
    scheduleEndsAt: null,
    scheduleCount: null,
    scheduleAnchor: new Date('2026-01-01T00:00:00Z'),
    excludeCalendars: [],
    sinkKind: 'webhook',
    sinkConfig: { url: 'https://example.com/hook' },
    retry: { ...DEFAULT_STORED_RETRY },
    timeoutMs: 30_000,
    slaThresholdMs: null,
    misfirePolicy: 'fire_once',
    overlapPolicy: 'allow',
    autoDisableThreshold: 3,
    startWindowMs: null,
    maxConcurrentRuns: null,
    ...extra,
  };
}

/** The configuration of the defaults, with `overrides` as a config file would give them. */
export function kitConfig(overrides: Record<string, unknown> = {}): AppConfig {
  return buildConfig(overrides, {});
}

/** The real `JobLifecycle` over the in-memory database and the fake Temporal. */
export function lifecycleOver(
  db: InMemoryDatabase,
  temporal: FakeTemporal,
  config: AppConfig = kitConfig(),
  followUps = new BackgroundWork(),
): JobLifecycle {
  return createJobLifecycle(db.repositories, { gateway: temporal.typedGateway, config, followUps });
}

/** Lets the follow-ups queued after an answer (a workflow signal) run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
