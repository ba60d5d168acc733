import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The raw body text. */
  text: string;
}

/** Escapes a JSON pointer token (RFC 6901). */
const pointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks real responses against the served OpenAPI document: the status is documented (or
 * `default`), required headers are present and well-typed, the content type is a documented one
 * and the body validates against its schema. Stricter than the document on one point, to catch
 * drift: an object schema that does not say otherwise allows no properties beyond its own, so a
 * field a mapper adds without the schema fails here.
 */
export class OpenApiContract {
  /** `METHOD /template` of every operation checked at least once. */
  readonly covered = new Set<string>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; regex: RegExp; params: number }>;

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...closeObjects(doc), $id: 'openapi' });
    this.templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        regex: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal segment wins over a parameter: `/jobs/test` before `/jobs/{id}`.
      .sort((a, b) => a.params - b.params);
  }

  static async fetch(baseUrl: string): Promise<OpenApiContract> {
    const response = await fetch(`${baseUrl}/api/v1/openapi.json`);
    if (response.status !== 200) {
      throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
    }
    return new OpenApiContract((await response.json()) as Json);
  }

  /** Every `METHOD /template` of the document. */
  operations(): string[] {
    return Object.entries(this.doc.paths as Json).flatMap(([path, ops]) =>
      Object.keys(ops as Json).map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  /** The operation a request goes to, as `METHOD /template`. */
  operationOf(method: string, path: string): string | undefined {
    const bare = path.split('?')[0];
    const found = this.templates.find((t) => t.regex.test(bare) && this.doc.paths[t.template][method.toLowerCase()]);
    return found ? `${method.toUpperCase()} ${found.template}` : undefined;
  }

  /** The contract violations of one exchange (empty when it conforms). */
  check(method: string, path: string, response: ObservedResponse): string[] {
    const key = this.operationOf(method, path);
    if (!key) {
      return [`${method} ${path}: no such operation in the document`];
    }
    this.covered.add(key);
    const template = key.slice(key.indexOf(' ') + 1);
    const op = this.doc.paths[template][method.toLowerCase()];
    const status = String(response.status);
    const documented = op.responses[status] ? status : op.responses.default ? 'default' : undefined;
    const where = `${key} → ${status}`;
    if (!documented) {
      return [`${where}: status not documented`];
    }
    const spec = op.responses[documented];
    const problems: string[] = [];
    for (const [name, ref] of Object.entries((spec.headers ?? {}) as Json)) {
      const header = ref.$ref ? this.resolve(ref.$ref) : ref;
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) {
          problems.push(`${where}: required header ${name} missing`);
        }
      } else if (header.schema?.type === 'integer' && !/^\d+$/.test(value)) {
        problems.push(`${where}: header ${name} is not an integer: ${value}`);
      }
    }
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
    if (!spec.content) {
      if (response.text.length > 0) {
        problems.push(`${where}: documented without a body, got ${response.text.slice(0, 100)}`);
      }
      return problems;
    }
    const [type] = contentType.split('/');
    const documentedType = [contentType, `${type}/*`, '*/*'].find((range) => spec.content[range]);
    if (!documentedType) {
      return [...problems, `${where}: content type ${contentType} not in ${Object.keys(spec.content).join(', ')}`];
    }
    if (contentType !== 'application/json') {
      return problems;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [...problems, `${where}: body is not JSON`];
    }
    const validate = this.validator(
      `openapi#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${documented}/content/application~1json/schema`,
    );
    if (!validate(body)) {
      problems.push(
        `${where}: body does not match its schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}` +
          ` — body: ${response.text.slice(0, 300)}`,
      );
    }
    return problems;
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  private resolve(ref: string): Json {
    return ref
      .slice(2)
      .split('/')
      .reduce((node: Json, token) => node[token.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }
}

/** A copy of the document where object schemas with `properties` and no `additionalProperties` allow no others. */
function closeObjects(node: unknown): any {
  if (Array.isArray(node)) {
    return node.map(closeObjects);
  }
  if (node && typeof node === 'object') {
    const out: Json = Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, closeObjects(v)]));
    if (out.properties && typeof out.properties === 'object' && out.additionalProperties === undefined) {
      out.additionalProperties = false;
    }
    return out;
  }
  return node;
}
