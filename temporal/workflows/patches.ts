/**
 * Every piece of workflow code that exists only for executions begun by an older release: each
 * `patched()` / `deprecatePatch()` id and each frozen legacy copy, with the day it shipped
 * (`git log -S'<id>' --reverse`) and the day it must be gone (docs/decisions.md → Upgrading
 * running workflows). `temporal/test/patches.spec.ts` fails past `removeAfter`, on a patch id missing here, on
 * an entry whose code is gone (move it to `RETIRED`) and on a deadline beyond `MAX_LIFETIME_DAYS`.
 * Not imported by workflow code: it is not in the bundle.
 */

/** How long compatibility code may live: a run's retry horizon (< 40 days) and room for releases. */
export const MAX_LIFETIME_DAYS = 90;

export interface CompatibilityCode {
  /** The patch id (`patched(id)`), or a name for a legacy copy. */
  id: string;
  kind: 'patch' | 'legacy';
  /** The day the release that needs it shipped (YYYY-MM-DD, UTC). */
  introduced: string;
  /** The day by which it is removed from the code (at most `MAX_LIFETIME_DAYS` after `introduced`). */
  removeAfter: string;
  /** Legacy copies: the files and folders that go with it (relative to the repository root). */
  paths?: string[];
}

export const COMPATIBILITY_CODE: readonly CompatibilityCode[] = [
  // The one-activity occurrence path (2026-11-22): executions begun before it have no marker.
  { id: 'job-occurrence-path-v2', kind: 'patch', introduced: '2026-11-22', removeAfter: '2027-02-20' },
  { id: 'run-one-attempt-v2', kind: 'patch', introduced: '2026-11-22', removeAfter: '2027-02-20' },
  {
    id: 'workflows-v1',
    kind: 'legacy',
    introduced: '2026-11-22',
    removeAfter: '2027-02-20',
    paths: [
      'temporal/workflows/legacy',
      'apps/worker/src/activities/legacy.activities.ts',
      'test/fixtures/workflows-v1',
      'test/e2e/upgrade.e2e-spec.ts',
      // The fixture's `@svc/common/ids`: the ids moved to libs/workflow-contract.
      'libs/common/src/ids.ts',
    ],
  },
  { id: 'occurrence-run-id', kind: 'patch', introduced: '2026-11-26', removeAfter: '2027-02-24' },
  { id: 'prepared-bursts', kind: 'patch', introduced: '2026-11-26', removeAfter: '2027-02-24' },
  { id: 'parked-idle-jobs', kind: 'patch', introduced: '2026-11-26', removeAfter: '2027-02-24' },
  { id: 'plan-opens-runs', kind: 'patch', introduced: '2026-11-26', removeAfter: '2027-02-24' },
  { id: 'run-ends-as-status', kind: 'patch', introduced: '2026-11-28', removeAfter: '2027-02-26' },
  // Destination limits: a run started with RUN_CODE_VERSION < 4 sleeps out its destination's waits.
  { id: 'run-destination-wait', kind: 'patch', introduced: '2026-11-28', removeAfter: '2027-02-26' },
  // A job's schedule starts at its change's commit, not when the workflow hears of it.
  { id: 'schedule-from-commit', kind: 'patch', introduced: '2026-11-28', removeAfter: '2027-02-26' },
];

/**
 * Compatibility code already removed: an execution begun before `introduced` cannot replay on a
 * release without it, so a deployment older than the newest `introduced` here upgrades through
 * the last release that still had it (docs/operations.md → Upgrading across skipped releases).
 */
export const RETIRED: readonly CompatibilityCode[] = [];

/** The oldest release a deployment may upgrade from directly: the newest retired introduction. */
export function oldestDirectUpgrade(retired: readonly CompatibilityCode[] = RETIRED): string | null {
  return retired.reduce<string | null>(
    (newest, c) => (newest === null || c.introduced > newest ? c.introduced : newest),
    null,
  );
}
