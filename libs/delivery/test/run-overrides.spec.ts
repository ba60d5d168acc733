import {
  applyRunOverrides,
  checkOverridesShape,
  inapplicableOverrides,
  overridesFieldPath,
  TemporalWorkflowSinkKind,
  WebhookSinkKind,
  CommandSinkKind,
  withRunOverrides,
} from '@svc/delivery';

const webhook = new WebhookSinkKind();
const workflow = new TemporalWorkflowSinkKind();

describe('per-run overrides (run-overrides.ts)', () => {
  it('should accept only the kind’s fields, vars for webhooks, and treat an empty object as none', () => {
    expect(checkOverridesShape(webhook, undefined)).toEqual({ overrides: null });
    expect(checkOverridesShape(webhook, {})).toEqual({ overrides: null });
    expect(checkOverridesShape(webhook, { body: 'x', vars: { a: '1' } })).toEqual({
      overrides: { body: 'x', vars: { a: '1' } },
    });
    expect(checkOverridesShape(webhook, { url: 'http://x' })).toEqual({
      fields: { 'overrides.url': expect.stringMatching(/allowed: body, headers, vars/) },
    });
    expect(checkOverridesShape(workflow, { vars: {} })).toEqual({
      fields: { 'overrides.vars': expect.stringMatching(/allowed: args, memo, search_attributes/) },
    });
    expect(checkOverridesShape(new CommandSinkKind(), { argv: [] })).toEqual({
      fields: { 'overrides.argv': 'a command sink takes no overrides' },
    });
    expect(checkOverridesShape(webhook, [])).toEqual({ fields: { overrides: 'must be a JSON object' } });
  });

  it('should refuse vars that are not plain strings without templates', () => {
    const fields = (vars: unknown) => (checkOverridesShape(webhook, { vars }) as { fields: object }).fields;
    expect(fields('x')).toEqual({ 'overrides.vars': 'must be an object of strings' });
    expect(fields({ 'bad-name': 'x', n: 1, t: '{{secret.KEY}}', b: 'a }} b' })).toEqual({
      'overrides.vars.bad-name': expect.stringMatching(/var name/),
      'overrides.vars.n': 'must be a string',
      'overrides.vars.t': 'templates are not allowed in a var value',
      'overrides.vars.b': 'templates are not allowed in a var value',
    });
  });

  it('should replace plain fields, merge objects key by key (headers in any case) and substitute vars', () => {
    const config = { url: 'http://x', body: 'own', headers: { 'X-Mode': 'job', 'X-Keep': 'k' } };
    expect(
      applyRunOverrides(webhook, config, {
        body: '{"a":{{vars.a}},"b":"{{vars.b}}","run":"{{run.id}}"}',
        headers: { 'x-mode': '{{vars.a}}' },
        vars: { a: '1' },
      }),
    ).toEqual({
      url: 'http://x',
      // an unknown var stays a reference (the template check names it); other templates stay too
      body: '{"a":1,"b":"{{vars.b}}","run":"{{run.id}}"}',
      headers: { 'X-Keep': 'k', 'x-mode': '1' },
    });
    expect(applyRunOverrides(webhook, config, null)).toBe(config);
    expect(
      applyRunOverrides(workflow, { args: [1], memo: { a: 1, b: 2 } }, { args: { x: 1 }, memo: { b: 3 } }),
    ).toEqual({ args: { x: 1 }, memo: { a: 1, b: 3 } });
  });

  it('should name errors of the sink validated with the overrides for the request', () => {
    const given = { body: 'x', headers: { 'X-A': 'a' } };
    expect(overridesFieldPath(webhook, 'sink.config.body', given)).toBe('overrides.body');
    expect(overridesFieldPath(webhook, 'sink.config.headers.X-A', given)).toBe('overrides.headers.X-A');
    expect(overridesFieldPath(webhook, 'sink.config.headers', given)).toBe('overrides.headers');
    // the job's own header or URL, not overridden: the overrides as a whole
    expect(overridesFieldPath(webhook, 'sink.config.headers.X-Job', given)).toBe('overrides');
    expect(overridesFieldPath(webhook, 'sink.config.url', given)).toBe('overrides');
    expect(overridesFieldPath(workflow, 'sink.config.args.0.day', { args: [{}] })).toBe('overrides.args.0.day');
  });

  it('should refuse to send a run whose overrides no longer fit the job’s sink kind', () => {
    expect(inapplicableOverrides(workflow, { body: 'x' })).toEqual(['body']);
    expect(withRunOverrides({ kind: 'temporal_workflow', config: {} }, { body: 'x' })).toEqual({
      error: "the run's overrides (body) do not apply to the job's temporal_workflow sink",
    });
    expect(withRunOverrides({ kind: 'webhook', config: { url: 'u' } }, { body: 'b' })).toEqual({
      kind: 'webhook',
      config: { url: 'u', body: 'b' },
    });
  });
});
