import {
  TemplateContext,
  TemplateRenderError,
  collectSecretNames,
  findTemplateReferences,
  renderHeaders,
  renderTemplate,
  validateTemplates,
} from '@svc/delivery';

const ctx: TemplateContext = {
  run: { id: 'run_01', scheduledAt: '2025-03-01T02:00:00Z', attempt: 1 },
  job: { id: 'job_01', name: 'nightly' },
  firedAt: Date.parse('2025-03-01T02:00:03.250Z'),
  secrets: { API_TOKEN: 't0k$&n', OTHER: 'x' },
};

describe('templating (decisions: Templates)', () => {
  describe('findTemplateReferences', () => {
    it('should find variables and secrets with positions', () => {
      const text = 'Bearer {{secret.API_TOKEN}} for {{ run.id }}';
      expect(findTemplateReferences(text)).toEqual([
        {
          kind: 'secret',
          name: 'API_TOKEN',
          raw: '{{secret.API_TOKEN}}',
          index: 7,
          length: 20,
          byteIndex: 7,
          byteLength: 20,
        },
        { kind: 'variable', name: 'run.id', raw: '{{ run.id }}', index: 32, length: 12, byteIndex: 32, byteLength: 12 },
      ]);
    });

    it('should count positions in UTF-8 bytes as well as string indexes', () => {
      // 'é' is 2 bytes, '€' 3 bytes and '😀' 4 bytes (2 UTF-16 units).
      const [ref] = findTemplateReferences('é€😀 {{nope}}');
      expect(ref).toMatchObject({ raw: '{{nope}}', index: 5, byteIndex: 10, byteLength: 8 });
    });

    it('should report unknown names and ignore non-identifier braces', () => {
      expect(
        findTemplateReferences('{{run.foo}} {{ }} {{"a":1}} {{secret.1BAD}}').map((r) => [r.kind, r.name]),
      ).toEqual([
        ['unknown', 'run.foo'],
        ['unknown', 'secret.1BAD'],
      ]);
    });
  });

  describe('validateTemplates', () => {
    it('should return nothing for valid templates', () => {
      expect(
        validateTemplates(
          {
            url: 'https://x.example/hook',
            headers: { 'X-Token': '{{secret.API_TOKEN}}' },
            body: '{"id":"{{run.id}}"}',
          },
          { secretNames: ['API_TOKEN'] },
        ),
      ).toEqual({});
    });

    it('should name each field with an unknown variable or secret', () => {
      expect(
        validateTemplates(
          {
            url: 'https://x.example/{{run.id}}',
            headers: { 'X-Token': '{{secret.MISSING}}', 'X-Ok': '{{job.name}}', 'X-Bad': '{{nope}}' },
            body: '{{fired_at}} {{run.nope}}',
          },
          { secretNames: ['API_TOKEN'] },
        ),
      ).toEqual({
        'sink.config.url': 'templates are not allowed in the URL',
        'sink.config.headers.X-Token': 'unknown secret "MISSING" at byte 0 (length 18)',
        'sink.config.headers.X-Bad': expect.stringContaining(
          'unknown template variable "{{nope}}" at byte 0 (length 8)',
        ),
        'sink.config.body': expect.stringContaining('unknown template variable "{{run.nope}}" at byte 13 (length 12)'),
      });
    });

    it('should report every bad reference of a field with its byte position, and list the variables', () => {
      const fields = validateTemplates(
        { body: '{"name":"Zürich {{job.nam}}","t":"{{secret.GONE}}","r":"{{ run.id }}"}' },
        { secretNames: [] },
      );
      expect(fields).toEqual({
        'sink.config.body':
          'unknown template variable "{{job.nam}}" at byte 17 (length 11); unknown secret "GONE" at byte 35 (length 15); ' +
          'allowed: {{run.id}}, {{run.scheduled_at}}, {{run.attempt}}, {{job.id}}, {{job.name}}, {{fired_at}}, {{workspace.id}}, {{secret.NAME}}',
      });
    });

    it('should only check secret syntax when no secret names are given', () => {
      expect(validateTemplates({ headers: { A: '{{secret.ANY}}' } })).toEqual({});
    });
  });

  describe('collectSecretNames', () => {
    it('should list referenced secrets once, sorted', () => {
      expect(
        collectSecretNames({ headers: { A: '{{secret.B}}{{secret.A}}' }, body: '{{secret.B}} {{run.id}}' }),
      ).toEqual(['A', 'B']);
    });
  });

  describe('renderTemplate', () => {
    it('should substitute every variable', () => {
      expect(
        renderTemplate('{{run.id}}|{{run.scheduled_at}}|{{run.attempt}}|{{job.id}}|{{job.name}}|{{fired_at}}', ctx),
      ).toBe('run_01|2025-03-01T02:00:00Z|1|job_01|nightly|2025-03-01T02:00:03.250Z');
    });

    it('should insert secret values literally (no $-pattern expansion)', () => {
      expect(renderTemplate('Bearer {{ secret.API_TOKEN }}', ctx)).toBe('Bearer t0k$&n');
    });

    it('should accept a secret lookup function', () => {
      expect(renderTemplate('{{secret.K}}', { ...ctx, secrets: (n) => (n === 'K' ? 'v' : undefined) })).toBe('v');
    });

    it('should throw without leaking values for a missing secret or unknown variable', () => {
      expect(() => renderTemplate('{{secret.GONE}}', ctx)).toThrow(TemplateRenderError);
      expect(() => renderTemplate('{{secret.GONE}}', ctx)).toThrow('unknown secret "GONE"');
      expect(() => renderTemplate('{{toString}}', ctx)).toThrow(/unknown template variable/);
      expect(() => renderTemplate('{{secret.constructor}}', ctx)).toThrow(/unknown secret/);
    });

    it('should leave text without templates alone', () => {
      expect(renderTemplate('{"a":{"b":1}} {{ }}', ctx)).toBe('{"a":{"b":1}} {{ }}');
    });
  });

  describe('renderHeaders', () => {
    it('should render each value and keep names', () => {
      expect(renderHeaders({ 'X-Run': '{{run.id}}', Authorization: 'Bearer {{secret.OTHER}}' }, ctx)).toEqual({
        'X-Run': 'run_01',
        Authorization: 'Bearer x',
      });
    });
  });
});
