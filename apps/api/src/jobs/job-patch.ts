import { formatDuration, parseDuration, ValidationFailedError } from '@svc/common';
import { JOB_SETTING_FIELDS, type JobSettingField } from '@svc/common/job-settings';
import type { RequestedScheduleKind } from '@svc/schedule';
import type { MisfirePolicy, OverlapPolicy } from '@svc/workflow-contract/definitions';
import { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, retryResponse, type RetrySettings } from './job-config';

/**
 * The merge rule of `PATCH /api/v1/jobs/{id}` (spec: "any subset of the create fields"; issue
 * #22 "edits never lose settings"), in one pure function so it is stated and tested once.
 *
 * - A field that is absent keeps its stored value.
 * - A field given a value takes it.
 * - `schedule`, `retry` and `sink.config` are merged field by field with the stored ones (one
 *   level deep: maps and lists inside them, such as `headers`, `env`, `retry_on`,
 *   `success_codes`, are values and are replaced whole).
 * - `null` resets a field to its default ({@link JOB_DEFAULTS}; inside `sink.config`, removing
 *   the field lets the sink's own default apply). `name`, `schedule`, `schedule.expr` and `sink`
 *   have no default and refuse `null` (the DTO does that, with `400 validation_failed`).
 * - When `schedule.expr` changes and `schedule.kind` is not given, the kind is `auto` again (the
 *   stored kind is what the old expression was detected as).
 * - A change of `sink.kind` needs `sink.config`: the new kind's configuration, complete. The old
 *   kind's configuration is not merged into it. Without it: `400` naming `sink.config`.
 *
 * The result is not validated here: the caller validates the merged job exactly as a create
 * (schedule, sink, retry consistency), so a PATCH can never produce an invalid job.
 */

/** A job's settings in the shape of the create body, as the job object returns them. */
export interface JobSettings {
  name: string;
  description: string;
  tags: string[];
  schedule: ScheduleSettings;
  sink: SinkSettings;
  retry: RetrySettings;
  timeout: string;
  sla_threshold: string | null;
  misfire_policy: MisfirePolicy;
  overlap_policy: OverlapPolicy;
  auto_disable_threshold: number | null;
  start_window: string | null;
  max_concurrent_runs: number | null;
}

export interface ScheduleSettings {
  expr: string;
  /** The stored (compiled) kind, or what a PATCH asks for: `auto` detects again. */
  kind: RequestedScheduleKind;
  timezone: string;
  starts_at: string | null;
  ends_at: string | null;
  count: number | null;
  exclude_calendars?: string[];
}

export interface SinkSettings {
  kind: string;
  config: Record<string, unknown>;
}

type Patch<T> = { [K in keyof T]?: T[K] | null };

/** A PATCH body after DTO validation (types and ranges checked, unknown fields refused). */
export interface JobPatch {
  name?: string;
  description?: string | null;
  tags?: string[] | null;
  schedule?: Patch<ScheduleSettings>;
  sink?: { kind?: string; config?: Record<string, unknown> };
  retry?: Patch<RetrySettings> | null;
  timeout?: string | null;
  sla_threshold?: string | null;
  misfire_policy?: MisfirePolicy | null;
  overlap_policy?: OverlapPolicy | null;
  auto_disable_threshold?: number | null;
  start_window?: string | null;
  max_concurrent_runs?: number | null;
}

/**
 * Every default of a job's settings, in one table (decisions.md → defaults; `null` thresholds =
 * the server default): what a create leaves out ({@link declaredSettings}), what `null` resets a
 * field to in a PATCH, and the `default` of each field in the OpenAPI document (what the
 * dashboard's form starts from).
 */
export const JOB_DEFAULTS = {
  description: '',
  tags: [] as string[],
  timeout: formatDuration(DEFAULT_TIMEOUT_MS),
  sla_threshold: null,
  misfire_policy: 'fire_once' as MisfirePolicy,
  overlap_policy: 'allow' as OverlapPolicy,
  auto_disable_threshold: null,
  start_window: null,
  max_concurrent_runs: null,
  schedule: {
    kind: 'auto',
    timezone: 'UTC',
    starts_at: null,
    ends_at: null,
    count: null,
    exclude_calendars: [] as string[],
  },
  retry: retryResponse(DEFAULT_RETRY) as RetrySettings,
} as const;

type TopLevelResettable = Exclude<keyof typeof JOB_DEFAULTS, 'schedule' | 'retry'>;
/** `name` has no default; the objects are merged field by field (see the rule above). */
const NOT_TOP_LEVEL_RESETTABLE: readonly JobSettingField[] = ['name', 'schedule', 'sink', 'retry'];
/** The top-level settings a PATCH may reset with `null` (every one but `name`). */
export const RESETTABLE_TOP_LEVEL: readonly TopLevelResettable[] = JOB_SETTING_FIELDS.filter(
  (field): field is TopLevelResettable => !NOT_TOP_LEVEL_RESETTABLE.includes(field),
);

/** `stored ⊕ patch`: the job a PATCH asks for (see the rule above). Pure; throws only `400`. */
export function applyJobPatch(stored: JobSettings, patch: JobPatch): JobSettings {
  const result: JobSettings = {
    ...stored,
    tags: [...stored.tags],
    schedule: { ...stored.schedule },
    sink: { kind: stored.sink.kind, config: { ...stored.sink.config } },
    retry: { ...stored.retry },
  };
  if (patch.name !== undefined) {
    result.name = patch.name;
  }
  for (const key of RESETTABLE_TOP_LEVEL) {
    const value = patch[key];
    if (value !== undefined) {
      (result as unknown as Record<string, unknown>)[key] = value === null ? clone(JOB_DEFAULTS[key]) : value;
    }
  }
  if (patch.schedule) {
    result.schedule = mergeFields(stored.schedule, patch.schedule, JOB_DEFAULTS.schedule);
    if (patch.schedule.expr !== undefined && patch.schedule.kind === undefined) {
      result.schedule.kind = 'auto';
    }
  }
  if (patch.retry === null) {
    result.retry = { ...JOB_DEFAULTS.retry };
  } else if (patch.retry) {
    result.retry = mergeFields(stored.retry, patch.retry, JOB_DEFAULTS.retry);
  }
  if (patch.sink) {
    result.sink = mergeSink(stored.sink, patch.sink);
  }
  return result;
}

/**
 * A create body, as far as its own checks passed: `name`, `schedule` and `sink` (which have no
 * default) are left out only when they were refused, and the settings are then not used.
 */
export interface JobDeclaration extends Omit<JobPatch, 'name' | 'sink' | 'schedule'> {
  name?: string;
  schedule?: Patch<ScheduleSettings>;
  sink?: SinkSettings;
}

/**
 * A create is a PATCH over the defaults (one merge rule, one defaults table): the
 * declared name, schedule expression and sink over {@link JOB_DEFAULTS}, then every other field
 * as a PATCH would apply it (absent or `null`: the default).
 */
export function declaredSettings(declaration: JobDeclaration): JobSettings {
  const { name, sink, schedule, ...rest } = declaration;
  const defaults = structuredClone(JOB_DEFAULTS) as unknown as JobSettings;
  const base: JobSettings = {
    ...defaults,
    name: name as string,
    schedule: { ...defaults.schedule, expr: schedule?.expr as string },
    sink: { kind: sink?.kind as string, config: sink?.config ?? {} },
  };
  return applyJobPatch(base, { ...rest, ...(schedule ? { schedule: { ...schedule, expr: undefined } } : {}) });
}

/** The columns of a job's plain settings (all but schedule, sink, retry and spread), for create and PATCH alike. */
export function scalarColumns(settings: JobSettings) {
  return {
    name: settings.name,
    description: settings.description,
    tags: settings.tags,
    timeoutMs: parseDuration(settings.timeout)!,
    slaThresholdMs: settings.sla_threshold === null ? null : parseDuration(settings.sla_threshold)!,
    misfirePolicy: settings.misfire_policy,
    overlapPolicy: settings.overlap_policy,
    autoDisableThreshold: settings.auto_disable_threshold,
  };
}

/** Whether a PATCH changes the sink's kind (JobLifecycle.update gives or takes the signing secret on a change of kind). */
export function changesSinkKind(stored: JobSettings, patch: JobPatch): boolean {
  return patch.sink?.kind !== undefined && patch.sink.kind !== stored.sink.kind;
}

function mergeSink(stored: SinkSettings, patch: NonNullable<JobPatch['sink']>): SinkSettings {
  const kind = patch.kind ?? stored.kind;
  if (kind !== stored.kind) {
    if (patch.config === undefined) {
      throw new ValidationFailedError({
        'sink.config': `changing sink.kind from ${stored.kind} to ${kind} needs the complete configuration of a ${kind} sink`,
      });
    }
    return { kind, config: withoutNulls(patch.config) };
  }
  return { kind, config: withoutNulls({ ...stored.config, ...(patch.config ?? {}) }) };
}

/** Field by field: absent keeps, `null` takes the default, a value wins. */
function mergeFields<T extends object>(stored: T, patch: Patch<T>, defaults: Partial<T>): T {
  const merged = { ...stored } as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) {
      continue;
    }
    merged[key] = value === null ? clone((defaults as Record<string, unknown>)[key] ?? null) : value;
  }
  return merged as T;
}

function withoutNulls(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== null && value !== undefined));
}

function clone<T>(value: T): T {
  return Array.isArray(value) ? ([...value] as T) : value;
}
