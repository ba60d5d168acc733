/**
 * Per-run overrides (docs/api.md → Per-run overrides): a trigger, a manual retry or a backfill may
 * carry a one-off change of the job's sink for that run only. The run records them; each of its
 * attempts sends the job's sink with them applied (`applyRunOverrides`); the job never changes.
 *
 * What a kind lets a run override is its own `overridableFields` (a webhook: `body`, `headers`;
 * a temporal_workflow: `args`, `memo`, `search_attributes`). Object fields merge into the job's
 * key by key (headers by name, any case); the others replace the job's value. A webhook run may
 * also carry `vars`: values for `{{vars.NAME}}` in its override texts, substituted before the
 * sink's own templates render (a value holds no template itself, so it cannot reach a secret).
 */
import { findTemplateReferences } from '../templating';
import type { SinkFieldErrors, SinkKind } from './sink-kind';

/** What a run records: a subset of its kind's `overridableFields`, plus `vars` for a webhook. */
export type RunOverrides = Record<string, unknown>;

/** The kinds whose override texts take `{{vars.NAME}}`. */
const KINDS_WITH_VARS = new Set(['webhook']);
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const VAR_REFERENCE = /\{\{\s*vars\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const MAX_VARS = 50;
const MAX_VAR_BYTES = 4096;

type OverridableKind = Pick<SinkKind, 'kind' | 'overridableFields'>;

/** The top-level fields `overrides` may hold for a kind (`vars` included where it applies). */
export function overrideFieldsOf(kind: OverridableKind): string[] {
  return [...(kind.overridableFields ?? []), ...(KINDS_WITH_VARS.has(kind.kind) ? ['vars'] : [])];
}

/**
 * The first checks of an `overrides` value, before the job's sink is validated with them: an
 * object of the kind's fields only, and well-formed `vars`. Field paths start with `overrides`.
 * An empty object is no overrides (null).
 */
export function checkOverridesShape(
  kind: OverridableKind,
  overrides: unknown,
): { overrides: RunOverrides | null } | { fields: SinkFieldErrors } {
  if (overrides === undefined || overrides === null) {
    return { overrides: null };
  }
  if (typeof overrides !== 'object' || Array.isArray(overrides)) {
    return { fields: { overrides: 'must be a JSON object' } };
  }
  const allowed = overrideFieldsOf(kind);
  const fields: SinkFieldErrors = {};
  for (const key of Object.keys(overrides)) {
    if (!allowed.includes(key)) {
      fields[`overrides.${key}`] = allowed.length
        ? `a ${kind.kind} sink takes no such override; allowed: ${allowed.join(', ')}`
        : `a ${kind.kind} sink takes no overrides`;
    }
  }
  const vars = (overrides as RunOverrides).vars;
  if (vars !== undefined) {
    Object.assign(fields, checkVars(vars));
  }
  if (Object.keys(fields).length > 0) {
    return { fields };
  }
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { overrides: Object.keys(given).length > 0 ? given : null };
}

function checkVars(vars: unknown): SinkFieldErrors {
  if (typeof vars !== 'object' || vars === null || Array.isArray(vars)) {
    return { 'overrides.vars': 'must be an object of strings' };
  }
  const entries = Object.entries(vars);
  if (entries.length > MAX_VARS) {
    return { 'overrides.vars': `must have at most ${MAX_VARS} entries` };
  }
  const fields: SinkFieldErrors = {};
  for (const [name, value] of entries) {
    const path = `overrides.vars.${name}`;
    if (!VAR_NAME.test(name)) {
      fields[path] = 'a var name is a letter or `_`, then letters, digits or `_` (at most 64)';
    } else if (typeof value !== 'string') {
      fields[path] = 'must be a string';
    } else if (Buffer.byteLength(value, 'utf8') > MAX_VAR_BYTES) {
      fields[path] = `must be at most ${MAX_VAR_BYTES} bytes of UTF-8`;
    } else if (findTemplateReferences(value).length > 0 || /\{\{|\}\}/.test(value)) {
      fields[path] = 'templates are not allowed in a var value';
    }
  }
  return fields;
}

/** `{{vars.NAME}}` of the given vars replaced; other references stay for the sink's templates. */
function substituteVars(value: unknown, vars: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') {
    return value.replace(VAR_REFERENCE, (raw: string, name: string) =>
      Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : raw,
    );
  }
  if (Array.isArray(value)) {
    return value.map((item) => substituteVars(item, vars));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteVars(item, vars)]));
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The sink config a run sends: the job's `config` with the run's overrides applied. A `{{vars.X}}`
 * left unreplaced (no such var) is an unknown template variable to the sink's own check and
 * rendering, as in a job's own texts.
 */
export function applyRunOverrides(
  kind: OverridableKind,
  config: Record<string, unknown>,
  overrides: RunOverrides | null | undefined,
): Record<string, unknown> {
  if (!overrides) {
    return config;
  }
  const { vars, ...rest } = overrides;
  const given = isObject(vars) ? substituteVars(rest, vars as Record<string, string>) : rest;
  const out: Record<string, unknown> = { ...config };
  for (const [field, value] of Object.entries(given as Record<string, unknown>)) {
    const current = out[field];
    if (isObject(value) && isObject(current)) {
      // Header names are case-insensitive: an override replaces the job's header of any case.
      const replaced = field === 'headers' ? Object.keys(value).map((k) => k.toLowerCase()) : Object.keys(value);
      const kept = Object.entries(current).filter(
        ([key]) => !replaced.includes(field === 'headers' ? key.toLowerCase() : key),
      );
      out[field] = { ...Object.fromEntries(kept), ...value };
    } else {
      out[field] = value;
    }
  }
  return out;
}

/**
 * Fields not of this kind (the job's sink kind changed after the run was opened): the run cannot
 * be sent as it was asked for. Empty when the overrides apply.
 */
export function inapplicableOverrides(kind: OverridableKind, overrides: RunOverrides | null | undefined): string[] {
  const allowed = overrideFieldsOf(kind);
  return Object.keys(overrides ?? {}).filter((key) => !allowed.includes(key));
}

/**
 * A field error of the job's sink validated with the overrides applied, named for the request:
 * `sink.config.body` → `overrides.body`, `sink.config.headers.X` → `overrides.headers.X`; an error
 * in a field the run did not override (the job's own, invalid now) → `overrides`.
 */
export function overridesFieldPath(kind: OverridableKind, path: string, overrides: RunOverrides): string {
  const prefix = 'sink.config.';
  if (!path.startsWith(prefix)) {
    return 'overrides';
  }
  const rest = path.slice(prefix.length);
  const field = rest.split('.')[0];
  if (!(kind.overridableFields ?? []).includes(field) || !(field in overrides)) {
    return 'overrides';
  }
  const value = overrides[field];
  if (isObject(value)) {
    const key = rest.slice(field.length + 1);
    if (key === '') {
      return `overrides.${field}`;
    }
    const own = Object.keys(value).some((k) => k === key || key.startsWith(`${k}.`));
    return own ? `overrides.${rest}` : 'overrides';
  }
  return `overrides.${rest}`;
}
