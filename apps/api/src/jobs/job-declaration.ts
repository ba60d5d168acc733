import type { JobEntity } from '@svc/persistence';
import type { JobSettingsColumns } from '@svc/orchestration';
import { type JobSettings, RESETTABLE_TOP_LEVEL } from './job-patch';
import { toJobSettings } from './jobs.mapper';

/**
 * Jobs as code: how a declaration (a `PUT /jobs/by-key/{key}` body, a job of an apply)
 * compares with the stored job. A declaration is complete: what it leaves out is at its default
 * (`JobSettingsFactory`, the create's defaults), so it is compared as the columns it would store,
 * both sides read back through `toJobSettings` (the shape PATCH merges and the job object shows):
 * `30000ms` and `30s`, `auto` and the detected kind, compare equal. Pure: no framework, no I/O.
 */

/** The schedule fields; when none changes the stored anchor is kept (interval phases hold, as on PATCH). */
const SCHEDULE_FIELDS = ['expr', 'kind', 'timezone', 'starts_at', 'ends_at', 'count', 'exclude_calendars'] as const;
const RETRY_FIELDS = ['max_attempts', 'backoff', 'initial_interval', 'max_interval', 'multiplier', 'jitter'] as const;
const TOP_LEVEL = ['name', ...RESETTABLE_TOP_LEVEL] as const;

/** The declared columns as they would be stored over `stored`: the stored anchor when the schedule is the same. */
export function declaredColumns(stored: JobEntity, declared: JobSettingsColumns): JobSettingsColumns {
  const sameSchedule = scheduleChanges(toJobSettings(stored), settingsOf(stored, declared)).length === 0;
  return sameSchedule ? { ...declared, scheduleAnchor: stored.scheduleAnchor } : declared;
}

/**
 * The field paths a declaration changes on the stored job, in a stable order (`name`,
 * `schedule.expr`, `sink.config.url`, `retry.max_attempts`, `managed_by`…); empty when it is
 * already what is declared. `managedBy` (apply only): the owner the job would have.
 */
export function declarationChanges(
  stored: JobEntity,
  declared: JobSettingsColumns,
  managedBy: string | null = stored.managedBy,
): string[] {
  const before = toJobSettings(stored);
  const after = settingsOf(stored, declared);
  const changes: string[] = [];
  for (const field of TOP_LEVEL) {
    if (!same(before[field], after[field])) {
      changes.push(field);
    }
  }
  changes.push(...scheduleChanges(before, after));
  if (before.sink.kind !== after.sink.kind) {
    changes.push('sink.kind', 'sink.config');
  } else {
    const fields = [...new Set([...Object.keys(before.sink.config), ...Object.keys(after.sink.config)])].sort();
    for (const field of fields) {
      if (!same(before.sink.config[field], after.sink.config[field])) {
        changes.push(`sink.config.${field}`);
      }
    }
  }
  for (const field of RETRY_FIELDS) {
    if (!same(before.retry[field], after.retry[field])) {
      changes.push(`retry.${field}`);
    }
  }
  if ((stored.managedBy ?? null) !== managedBy) {
    changes.push('managed_by');
  }
  return changes;
}

function scheduleChanges(before: JobSettings, after: JobSettings): string[] {
  return SCHEDULE_FIELDS.filter((field) => !same(before.schedule[field], after.schedule[field])).map(
    (field) => `schedule.${field}`,
  );
}

function settingsOf(stored: JobEntity, declared: JobSettingsColumns): JobSettings {
  return toJobSettings(
    Object.assign(Object.create(Object.getPrototypeOf(stored) as object) as JobEntity, stored, declared),
  );
}

/** Deep equality of JSON values, object keys in any order. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => same(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  const otherKeys = Object.keys(right).filter((key) => right[key] !== undefined);
  return keys.length === otherKeys.length && keys.every((key) => same(left[key], right[key]));
}
