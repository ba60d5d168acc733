/**
 * Templates in webhook header values and body (decisions: Templates).
 *
 * Syntax: `{{ name }}` (spaces optional) where name is one of `TEMPLATE_VARIABLES` or
 * `secret.NAME`. Substitution is literal text (no escaping): a template inside a JSON string
 * receives the raw value. Text between braces that is not a dotted identifier (for example
 * `{{ }}` or `{{"a":1}}`) is left as is and is not a reference. Templates are never allowed in
 * `url`.
 */
import { TimestampInput, formatTimestamp } from './payload';

/** Every non-secret variable (decisions: Templates). */
export const TEMPLATE_VARIABLES = [
  'run.id',
  'run.scheduled_at',
  'run.attempt',
  'job.id',
  'job.name',
  'fired_at',
  'workspace.id',
] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

/** Secret names (decisions: Secrets). */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const REFERENCE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

export interface TemplateReference {
  /** `variable`: one of TEMPLATE_VARIABLES; `secret`: `secret.NAME`; `unknown`: anything else. */
  kind: 'variable' | 'secret' | 'unknown';
  /** The variable (`run.id`), the secret name (`API_TOKEN`) or the unknown expression. */
  name: string;
  /** The whole template as written, e.g. `{{ secret.API_TOKEN }}`. */
  raw: string;
  /** Offset of `raw` in the text, in UTF-16 code units (JavaScript string index). */
  index: number;
  /** Length of `raw` in UTF-16 code units. */
  length: number;
  /** Offset of `raw` in the text's UTF-8 encoding, in bytes (what validation messages report). */
  byteIndex: number;
  /** Length of `raw` in UTF-8 bytes. */
  byteLength: number;
}

function classifyExpression(expr: string): Pick<TemplateReference, 'kind' | 'name'> {
  if ((TEMPLATE_VARIABLES as readonly string[]).includes(expr)) {
    return { kind: 'variable', name: expr };
  }
  if (expr.startsWith('secret.')) {
    const name = expr.slice('secret.'.length);
    if (SECRET_NAME_PATTERN.test(name)) {
      return { kind: 'secret', name };
    }
  }
  return { kind: 'unknown', name: expr };
}

/** Every `{{ … }}` reference in `text`, in order, with its position (UTF-16 and UTF-8 bytes). */
export function findTemplateReferences(text: string): TemplateReference[] {
  const refs: TemplateReference[] = [];
  for (const m of text.matchAll(REFERENCE)) {
    const index = m.index ?? 0;
    refs.push({
      ...classifyExpression(m[1]),
      raw: m[0],
      index,
      length: m[0].length,
      byteIndex: Buffer.byteLength(text.slice(0, index), 'utf8'),
      byteLength: Buffer.byteLength(m[0], 'utf8'),
    });
  }
  return refs;
}

/** ` at byte 7 (length 20)`: where a reference sits in its field, in UTF-8 bytes (as schedule errors count). */
function positionOf(ref: TemplateReference): string {
  return ` at byte ${ref.byteIndex} (length ${ref.byteLength})`;
}

/** The templatable parts of a webhook sink config. */
export interface TemplatableConfig {
  url?: string;
  headers?: Readonly<Record<string, string>>;
  body?: string | null;
}

export interface ValidateTemplatesOptions {
  /**
   * Names of the workspace's stored secrets. When given, references to other secrets are
   * errors (`400 unknown secret`); when omitted, secret names are only checked for syntax.
   */
  secretNames?: Iterable<string>;
  /** Prefix of the field paths; default `sink.config`. */
  basePath?: string;
}

/**
 * Create-time template check. Returns field path → message (`sink.config.headers.X-Token`,
 * `sink.config.body`, `sink.config.url`) for the API's 400 `fields`; empty when valid. Each
 * message gives the reference's position in its field in UTF-8 bytes
 * (`unknown secret "MISSING" at byte 7 (length 20)`). Several problems in one field are joined
 * with `; `.
 */
export function validateTemplates(
  config: TemplatableConfig,
  options: ValidateTemplatesOptions = {},
): Record<string, string> {
  const base = options.basePath ?? 'sink.config';
  const known = options.secretNames ? new Set(options.secretNames) : null;
  const errors: Record<string, string> = {};

  if (config.url !== undefined && /\{\{|\}\}/.test(config.url)) {
    errors[`${base}.url`] = 'templates are not allowed in the URL';
  }
  const check = (path: string, text: string) => {
    const messages: string[] = [];
    for (const ref of findTemplateReferences(text)) {
      if (ref.kind === 'unknown') {
        messages.push(`unknown template variable "${ref.raw}"${positionOf(ref)}`);
      } else if (ref.kind === 'secret' && known && !known.has(ref.name)) {
        messages.push(`unknown secret "${ref.name}"${positionOf(ref)}`);
      }
    }
    if (messages.length > 0) {
      const unknownVariable = messages.some((m) => m.startsWith('unknown template variable'));
      errors[path] =
        messages.join('; ') +
        (unknownVariable ? `; allowed: ${TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(', ')}, {{secret.NAME}}` : '');
    }
  };
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (typeof value === 'string') {
      check(`${base}.headers.${name}`, value);
    }
  }
  if (typeof config.body === 'string') {
    check(`${base}.body`, config.body);
  }
  return errors;
}

/** Names of the secrets a config references (sorted, unique): for "secret in use" checks. */
export function collectSecretNames(config: TemplatableConfig): string[] {
  const names = new Set<string>();
  const texts = [...Object.values(config.headers ?? {}), ...(typeof config.body === 'string' ? [config.body] : [])];
  for (const text of texts) {
    for (const ref of findTemplateReferences(text)) {
      if (ref.kind === 'secret') {
        names.add(ref.name);
      }
    }
  }
  return [...names].sort();
}

/** Values available while rendering one attempt. */
export interface TemplateContext {
  run: { id: string; scheduledAt: TimestampInput; attempt: number };
  job: { id: string; name: string };
  /** When this attempt is sent. */
  firedAt: TimestampInput;
  /** The job's workspace; `{{workspace.id}}` fails to render without it. */
  workspace?: { id: string };
  /** Decrypted secret values by name, or a lookup function. */
  secrets: Readonly<Record<string, string>> | ((name: string) => string | undefined);
}

/** Rendering failed: an unknown variable or a secret that no longer exists (attempt is fatal). */
export class TemplateRenderError extends Error {
  constructor(
    message: string,
    /** The reference that failed, e.g. `secret.API_TOKEN`. Never a value. */
    readonly reference: string,
  ) {
    super(message);
    this.name = 'TemplateRenderError';
  }
}

function variableValue(name: TemplateVariable, ctx: TemplateContext): string {
  switch (name) {
    case 'run.id':
      return ctx.run.id;
    case 'run.scheduled_at':
      return formatTimestamp(ctx.run.scheduledAt);
    case 'run.attempt':
      return String(ctx.run.attempt);
    case 'job.id':
      return ctx.job.id;
    case 'job.name':
      return ctx.job.name;
    case 'fired_at':
      return formatTimestamp(ctx.firedAt);
    case 'workspace.id':
      if (!ctx.workspace) {
        throw new TemplateRenderError('{{workspace.id}} is not available here', name);
      }
      return ctx.workspace.id;
  }
}

/**
 * Replace every reference in `text`. Timestamps render as RFC 3339 UTC, `run.attempt` 0-based.
 * @throws TemplateRenderError for an unknown variable or a missing secret (message names the
 *   reference, never a value).
 */
export function renderTemplate(text: string, ctx: TemplateContext): string {
  const lookup =
    typeof ctx.secrets === 'function'
      ? ctx.secrets
      : (name: string) =>
          Object.prototype.hasOwnProperty.call(ctx.secrets, name)
            ? (ctx.secrets as Readonly<Record<string, string>>)[name]
            : undefined;
  return text.replace(REFERENCE, (raw: string, expr: string) => {
    const ref = classifyExpression(expr);
    if (ref.kind === 'variable') {
      return variableValue(ref.name as TemplateVariable, ctx);
    }
    if (ref.kind === 'secret') {
      const value = lookup(ref.name);
      if (value === undefined) {
        throw new TemplateRenderError(`unknown secret "${ref.name}"`, `secret.${ref.name}`);
      }
      return value;
    }
    throw new TemplateRenderError(`unknown template variable "${raw}"`, expr);
  });
}

/** Render every header value. @throws TemplateRenderError */
export function renderHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  ctx: TemplateContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    out[name] = renderTemplate(value, ctx);
  }
  return out;
}
