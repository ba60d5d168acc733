import { builtInSinkKinds, type SinkKind, SinkRegistry, secretsUsedBy } from '@svc/delivery';

/** An extension kind: one template field, `note`, and a secret it uses outside templates. */
const extension = {
  kind: 'pager',
  templateFields: (config: { note?: string }) => (config.note ? { 'sink.config.note': config.note } : {}),
  secretNames: (config: { key_secret?: string }) => (config.key_secret ? [config.key_secret] : []),
} as unknown as SinkKind;

const registry = new SinkRegistry([...builtInSinkKinds(), extension]);

describe('secretsUsedBy: which secrets a job uses, for every kind', () => {
  it.each<[name: string, kind: string, config: unknown, expected: string[]]>([
    [
      'webhook: header values and body, not the url',
      'webhook',
      {
        url: 'https://h.example/secret.URL_ONLY',
        headers: { Authorization: 'Bearer {{ secret.TOKEN }}' },
        body: '{"k":"{{secret.BODY_KEY}}","t":"{{secret.TOKEN}}"}',
      },
      ['BODY_KEY', 'TOKEN'],
    ],
    [
      'temporal_workflow: every string of args, nested, and the workflow id',
      'temporal_workflow',
      {
        namespace: 'reports',
        task_queue: 'q',
        workflow_type: 'wf',
        workflow_id: 'id-{{secret.ID_PART}}',
        args: [{ auth: { token: '{{secret.ARG_TOKEN}}' } }, ['x', '{{ secret.LISTED }}'], 3],
      },
      ['ARG_TOKEN', 'ID_PART', 'LISTED'],
    ],
    [
      'command: declares no template field, so a literal {{secret.X}} in argv or env is no use',
      'command',
      { argv: ['echo', '{{secret.LITERAL}}'], env: { A: '{{secret.ENV}}' } },
      [],
    ],
    [
      'an extension kind: its declared template fields plus its own secretNames, nothing else',
      'pager',
      { note: 'hi {{secret.NOTE_KEY}}', key_secret: 'PAGER_KEY', other: '{{secret.NOT_A_TEMPLATE_FIELD}}' },
      ['NOTE_KEY', 'PAGER_KEY'],
    ],
    [
      'a kind this server does not know locks conservatively: any secret.NAME mention, keys included',
      'removed_kind',
      { a: 'x {{secret.IN_TEMPLATE}} y', b: ['plain secret.BARE_MENTION', { 'secret.IN_KEY': 1 }], c: 42 },
      ['BARE_MENTION', 'IN_KEY', 'IN_TEMPLATE'],
    ],
  ])('%s', (_name, kind, config, expected) => {
    expect(secretsUsedBy(registry, kind, config)).toEqual(expected);
  });

  it('without a registry, every kind is read conservatively', () => {
    expect(secretsUsedBy(null, 'webhook', { headers: { A: 'secret.NO_REGISTRY' } })).toEqual(['NO_REGISTRY']);
  });

  it('a known kind that throws on a stored config falls back to the conservative reading', () => {
    const broken = {
      kind: 'broken',
      templateFields: () => {
        throw new Error('bad config');
      },
      secretNames: () => [],
    } as unknown as SinkKind;
    expect(secretsUsedBy(new SinkRegistry([broken]), 'broken', { x: '{{secret.KEPT}}' })).toEqual(['KEPT']);
  });
});
