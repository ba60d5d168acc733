/**
 * The job form's model, pure (no DOM, no fetch): every setting of a job as form text, the create
 * body built from it, and the PATCH body of an edit, which holds only what the user changed
 * (saving must never reset what the form did not touch). The server merges that PATCH
 * with the stored job field by field (docs/api.md → PATCH); `null` resets a field to its default.
 */
import { CREATE_JOB_DEFAULTS } from '@svc/api-client';
import type { Job, SinkFormField, SinkKindInfo } from './api';

export interface FormState {
  name: string;
  description: string;
  tags: string;
  expr: string;
  kind: string;
  timezone: string;
  startsAt: string;
  endsAt: string;
  count: string;
  misfirePolicy: string;
  overlapPolicy: string;
  timeout: string;
  slaThreshold: string;
  autoDisableThreshold: string;
  /** The spread window (empty: none) and the run cap under `allow` (empty: unbounded). */
  startWindow: string;
  maxConcurrentRuns: string;
  maxAttempts: string;
  backoff: string;
  initialInterval: string;
  maxInterval: string;
  multiplier: string;
  jitter: string;
  sinkKind: string;
  url: string;
  method: string;
  headers: string;
  body: string;
  successCodes: string;
  retryOn: string;
  followRedirects: boolean;
  argv: string;
  env: string;
  cwd: string;
  retryOnExitCodes: string;
  /** The config of any other sink kind, by field name, as text (its `fields` from /features). */
  sinkFields: Record<string, string>;
}

/** The kinds with fields of their own in the form; every other kind is rendered from its `fields`. */
export const BUILT_IN_FORM_KINDS = ['webhook', 'command'];

export const SCHEDULE_KINDS = ['auto', 'natural', 'quartz', 'cron', 'rrule'];
export const MISFIRE_POLICIES = ['fire_once', 'skip', 'fire_all'];
export const OVERLAP_POLICIES = ['allow', 'skip', 'queue', 'cancel_previous'];
export const BACKOFFS = ['exponential', 'linear', 'fixed'];
export const HTTP_METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'];

const DEFAULTS = CREATE_JOB_DEFAULTS;

/** A new job: the server's defaults, as its OpenAPI document states them (`CREATE_JOB_DEFAULTS`). */
export function emptyForm(timezone: string): FormState {
  return {
    name: '',
    description: '',
    tags: '',
    expr: '',
    kind: DEFAULTS.schedule.kind,
    timezone,
    startsAt: '',
    endsAt: '',
    count: '',
    misfirePolicy: DEFAULTS.misfire_policy,
    overlapPolicy: DEFAULTS.overlap_policy,
    timeout: DEFAULTS.timeout,
    slaThreshold: '',
    autoDisableThreshold: '',
    startWindow: '',
    maxConcurrentRuns: '',
    maxAttempts: String(DEFAULTS.retry.max_attempts),
    backoff: DEFAULTS.retry.backoff,
    initialInterval: DEFAULTS.retry.initial_interval,
    maxInterval: DEFAULTS.retry.max_interval,
    multiplier: String(DEFAULTS.retry.multiplier),
    jitter: String(DEFAULTS.retry.jitter),
    sinkKind: 'webhook',
    url: '',
    method: DEFAULTS.webhook.method,
    headers: '',
    body: '',
    successCodes: list(DEFAULTS.webhook.success_codes),
    retryOn: list(DEFAULTS.webhook.retry_on),
    followRedirects: DEFAULTS.webhook.follow_redirects,
    argv: '',
    env: '',
    cwd: '',
    retryOnExitCodes: '',
    sinkFields: {},
  };
}

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
const list = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : text(value));
const lines = (map: unknown, separator: string): string =>
  Object.entries((map as Record<string, string> | undefined) ?? {})
    .map(([k, v]) => `${k}${separator}${v}`)
    .join('\n');

/** A loaded job as form text: every setting the API has, exactly as stored. */
export function fromJob(job: Job, kinds: readonly SinkKindInfo[] = []): FormState {
  const config = job.sink.config;
  const empty = emptyForm(job.schedule.timezone);
  const webhook = job.sink.kind === 'webhook';
  if (!BUILT_IN_FORM_KINDS.includes(job.sink.kind)) {
    return {
      ...fromJobSettings(job, empty),
      sinkKind: job.sink.kind,
      sinkFields: fieldTexts(config, kinds.find((k) => k.kind === job.sink.kind)?.fields ?? []),
    };
  }
  return {
    ...fromJobSettings(job, empty),
    sinkKind: job.sink.kind,
    ...(webhook
      ? {
          url: text(config.url),
          method: text(config.method) || 'POST',
          headers: lines(config.headers, ': '),
          body: text(config.body),
          successCodes: list(config.success_codes ?? '2xx'),
          retryOn: list(config.retry_on ?? []),
          followRedirects: config.follow_redirects === true,
        }
      : {
          argv: ((config.argv as string[] | undefined) ?? []).join('\n'),
          env: lines(config.env, '='),
          cwd: text(config.cwd),
          retryOnExitCodes: list(config.retry_on_exit_codes ?? []),
        }),
  };
}

/** The settings every job has, as form text (fromJob without the sink). */
function fromJobSettings(job: Job, empty: FormState): FormState {
  return {
    ...empty,
    name: job.name,
    description: job.description ?? '',
    tags: job.tags.join(', '),
    expr: job.schedule.expr,
    kind: job.schedule.kind,
    timezone: job.schedule.timezone,
    startsAt: text(job.schedule.starts_at),
    endsAt: text(job.schedule.ends_at),
    count: text(job.schedule.count),
    misfirePolicy: job.misfire_policy,
    overlapPolicy: job.overlap_policy,
    timeout: job.timeout,
    slaThreshold: text(job.sla_threshold),
    autoDisableThreshold: text(job.auto_disable_threshold),
    startWindow: text(job.start_window),
    maxConcurrentRuns: text(job.max_concurrent_runs),
    maxAttempts: String(job.retry.max_attempts),
    backoff: job.retry.backoff,
    initialInterval: job.retry.initial_interval,
    maxInterval: job.retry.max_interval,
    multiplier: String(job.retry.multiplier),
    jitter: String(job.retry.jitter),
  };
}

/** A stored config of another kind as text per field, by the field's type (JSON when unknown). */
function fieldTexts(config: Record<string, unknown>, fields: readonly SinkFormField[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).map(([name, value]) => {
      const type = fields.find((f) => f.name === name)?.type ?? 'json';
      if (type === 'lines' && Array.isArray(value)) {
        return [name, value.join('\n')];
      }
      if (type === 'map') {
        return [name, lines(value, '=')];
      }
      if (type !== 'json' && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
        return [name, String(value)];
      }
      return [name, JSON.stringify(value)];
    }),
  );
}

/**
 * A field's text as its config value, by the field's type: `null` when empty (the kind's default
 * applies); JSON that does not parse stays text (`sinkFieldErrors` names it first).
 */
function fieldValue(field: SinkFormField | undefined, value: string): unknown {
  const trimmed = value.trim();
  if (trimmed === '') {
    return null;
  }
  switch (field?.type ?? 'json') {
    case 'number':
      return numberOr(trimmed);
    case 'checkbox':
      return trimmed === 'true';
    case 'lines':
      return value.split('\n').filter((line) => line !== '');
    case 'map':
      return parseMap(value, '=');
    case 'json':
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        return value;
      }
    default:
      return field?.type === 'textarea' ? value : trimmed;
  }
}

/** The fields of another kind that the form can tell are wrong before sending: required, JSON. */
export function sinkFieldErrors(form: FormState, kinds: readonly SinkKindInfo[]): Record<string, string> {
  const kind = kinds.find((k) => k.kind === form.sinkKind);
  if (!kind || BUILT_IN_FORM_KINDS.includes(kind.kind)) {
    return {};
  }
  const errors: Record<string, string> = {};
  for (const field of kind.fields) {
    const value = (form.sinkFields[field.name] ?? '').trim();
    if (field.required && value === '') {
      errors[`sink.config.${field.name}`] = 'is required';
    } else if (field.type === 'json' && value !== '') {
      try {
        JSON.parse(value);
      } catch {
        errors[`sink.config.${field.name}`] = 'must be valid JSON';
      }
    }
  }
  return errors;
}

/** `Name: value` (or `KEY=value`) lines → a map; blank lines are ignored. */
export function parseMap(value: string, separator: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of value.split('\n')) {
    const at = line.indexOf(separator);
    if (at > 0) {
      map[line.slice(0, at).trim()] = line.slice(at + separator.length).trim();
    }
  }
  return map;
}

/** A number when the text is one; other text goes as typed, so the API names the field in its 400. */
function numberOr(value: string): number | string | null {
  const trimmed = value.trim();
  if (trimmed === '') {
    return null;
  }
  return Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

const orNull = (value: string): string | null => (value.trim() === '' ? null : value.trim());
const entries = (value: string): string[] =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** The job the form describes, in the create body's shape; `null` where a field is left empty. */
export function toSettings(form: FormState, kinds: readonly SinkKindInfo[] = []): Record<string, any> {
  const successCodes = entries(form.successCodes);
  const fields = kinds.find((k) => k.kind === form.sinkKind)?.fields ?? [];
  const config = !BUILT_IN_FORM_KINDS.includes(form.sinkKind)
    ? Object.fromEntries(
        Object.entries(form.sinkFields).map(([name, value]) => [
          name,
          fieldValue(
            fields.find((f) => f.name === name),
            value,
          ),
        ]),
      )
    : form.sinkKind === 'command'
      ? {
          argv: form.argv.split('\n').filter((arg) => arg !== ''),
          env: form.env.trim() ? parseMap(form.env, '=') : null,
          cwd: orNull(form.cwd),
          retry_on_exit_codes: entries(form.retryOnExitCodes).map(numberOr),
        }
      : {
          url: form.url.trim(),
          method: form.method,
          headers: parseMap(form.headers, ':'),
          body: form.body === '' ? null : form.body,
          success_codes:
            successCodes.length === 1 && successCodes[0] === '2xx' ? '2xx' : successCodes.map((c) => numberOr(c)),
          retry_on: entries(form.retryOn).map((entry) => (/^\d+$/.test(entry) ? Number(entry) : entry)),
          follow_redirects: form.followRedirects,
        };
  return {
    name: form.name,
    description: form.description,
    tags: entries(form.tags),
    schedule: {
      expr: form.expr,
      kind: form.kind,
      timezone: form.timezone.trim() || 'UTC',
      starts_at: orNull(form.startsAt),
      ends_at: orNull(form.endsAt),
      count: numberOr(form.count),
    },
    sink: { kind: form.sinkKind, config },
    retry: {
      max_attempts: numberOr(form.maxAttempts),
      backoff: form.backoff,
      initial_interval: form.initialInterval.trim(),
      max_interval: form.maxInterval.trim(),
      multiplier: numberOr(form.multiplier),
      jitter: numberOr(form.jitter),
    },
    timeout: orNull(form.timeout),
    sla_threshold: orNull(form.slaThreshold),
    misfire_policy: form.misfirePolicy,
    overlap_policy: form.overlapPolicy,
    auto_disable_threshold: numberOr(form.autoDisableThreshold),
    start_window: orNull(form.startWindow),
    max_concurrent_runs: numberOr(form.maxConcurrentRuns),
  };
}

/** The create body: the settings without the empty (null) fields, which then take their defaults. */
export function createBody(form: FormState, kinds: readonly SinkKindInfo[] = []): Record<string, unknown> {
  return withoutNulls(toSettings(form, kinds)) as Record<string, unknown>;
}

function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return value;
  }
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields of `after` that differ from `before` (one level); a field gone from `after` is `null`. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!same(before[key], after[key])) {
      changed[key] = after[key] ?? null;
    }
  }
  return changed;
}

/**
 * The PATCH body of an edit: only what differs between the form as loaded and the form now, so
 * every setting the user did not touch stays as stored on the server. Nested objects (`schedule`,
 * `retry`, `sink.config`) carry only their changed fields; a sink kind change carries the new
 * kind's whole config. Empty when nothing changed.
 */
export function patchBody(
  loaded: FormState,
  edited: FormState,
  kinds: readonly SinkKindInfo[] = [],
): Record<string, unknown> {
  const before = toSettings(loaded, kinds);
  const after = toSettings(edited, kinds);
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    if (key === 'schedule' || key === 'retry' || key === 'sink') {
      continue;
    }
    if (!same(before[key], after[key])) {
      patch[key] = after[key];
    }
  }
  for (const key of ['schedule', 'retry'] as const) {
    const changed = changedFields(before[key], after[key]);
    if (Object.keys(changed).length > 0) {
      patch[key] = changed;
    }
  }
  if (before.sink.kind !== after.sink.kind) {
    patch.sink = { kind: after.sink.kind, config: withoutNulls(after.sink.config) };
  } else {
    const changed = changedFields(before.sink.config, after.sink.config);
    if (Object.keys(changed).length > 0) {
      patch.sink = { config: changed };
    }
  }
  return patch;
}
