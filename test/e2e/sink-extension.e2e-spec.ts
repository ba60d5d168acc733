import { resolve } from 'node:path';
import { memoryDeliveries } from '../fixtures/memory-sink/memory-sink.module';
import { waitFor } from '../utils/receiver';
import { useStack } from '../utils/stack';

/**
 * Sinks as an extension point (issue 28, docs/extending.md): a kind added by one Nest module named
 * in `sinks.modules` is validated, documented, tested and delivered like a built-in one, by the
 * API and the worker alike, with no edit to the service.
 */
describe('a sink kind added by a Nest module', () => {
  const e2e = useStack({
    config: { sinks: { modules: [resolve(__dirname, '../fixtures/memory-sink/memory-sink.module.ts')] } },
  });

  it('is created, fired and recorded as an attempt, its templates rendered with the secret', async () => {
    expect((await e2e.api('PUT', '/api/v1/secrets/GREETING', { value: 'hello-secret-value' })).status).toBeLessThan(
      300,
    );
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'memory job',
      schedule: { expr: 'every day at 3am' },
      sink: {
        kind: 'memory',
        config: { channel: 'ops', message: '{{secret.GREETING}} from {{job.name}} ({{run.id}})' },
      },
      retry: { max_attempts: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.sink).toEqual({
      kind: 'memory',
      config: { channel: 'ops', message: '{{secret.GREETING}} from {{job.name}} ({{run.id}})' },
    });
    expect(created.body.signing_secret).toBeUndefined();

    const triggered = await e2e.api('POST', `/api/v1/jobs/${created.body.id}/trigger`);
    const run = await waitFor(async () => {
      const body = (await e2e.api('GET', `/api/v1/runs/${triggered.body.run_id}`)).body;
      return body.status === 'succeeded' ? body : null;
    }, 30_000);
    expect(run.attempts).toHaveLength(1);
    expect(run.attempts[0]).toMatchObject({ n: 0, outcome: 'success', request_summary: 'append to #ops' });
    expect(memoryDeliveries.filter((d) => d.runId === run.id)).toEqual([
      {
        channel: 'ops',
        message: `hello-secret-value from memory job (${run.id})`,
        runId: run.id,
        attempt: 0,
        test: false,
      },
    ]);
  });

  it('is validated by its own schema and checks, and by the template rules', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ channel: 'Not Valid' }, 'sink.config.channel'],
      [{ channel: 'ops', extra: 1 }, 'sink.config.extra'],
      [{ channel: 'forbidden' }, 'sink.config.channel'],
      [{ channel: 'ops', message: '{{secret.MISSING}}' }, 'sink.config.message'],
    ];
    for (const [config, field] of cases) {
      const response = await e2e.api('POST', '/api/v1/jobs', {
        name: 'bad memory',
        schedule: { expr: 'every day at 3am' },
        sink: { kind: 'memory', config },
      });
      expect({ config, status: response.status }).toEqual({ config, status: 400 });
      expect(Object.keys(response.body.error.fields)).toEqual([field]);
    }
    const unknown = await e2e.api('POST', '/api/v1/jobs', {
      name: 'unknown kind',
      schedule: { expr: 'every day at 3am' },
      sink: { kind: 'carrier_pigeon', config: {} },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.fields['sink.kind']).toMatch(
      /^unknown sink kind; one of webhook, command, temporal_workflow, memory$/,
    );
  });

  it('is sent by POST /jobs/test without a run, secret values redacted from what it answered', async () => {
    const tested = await e2e.api('POST', '/api/v1/jobs/test', {
      name: 'try memory',
      schedule: { expr: 'every day at 3am' },
      sink: { kind: 'memory', config: { channel: 'trial', message: 'say {{secret.GREETING}}' } },
    });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({
      outcome: 'success',
      request_summary: 'append to #trial',
      response_body: 'say [redacted]',
    });
    expect(memoryDeliveries.filter((d) => d.channel === 'trial')).toEqual([
      expect.objectContaining({ test: true, attempt: 0 }),
    ]);
  });

  it('is described in the OpenAPI document and in the features the dashboard reads', async () => {
    const doc = (await e2e.api('GET', '/api/v1/openapi.json')).body;
    expect(doc.components.schemas.MemorySinkConfig).toMatchObject({
      required: ['channel'],
      properties: { channel: { type: 'string' } },
    });
    const kinds = doc.components.schemas.SinkDto.oneOf.map(
      (variant: { properties: { kind: { const: string } } }) => variant.properties.kind.const,
    );
    expect(kinds).toEqual(['webhook', 'temporal_workflow', 'memory']); // command is off on this server
    // A stored job may still be of a kind this server turned off: responses describe every kind.
    const stored = doc.components.schemas.Job.properties.sink.oneOf.map(
      (variant: { properties: { kind: { const: string } } }) => variant.properties.kind.const,
    );
    expect(stored).toEqual(['webhook', 'command', 'temporal_workflow', 'memory']);
    const features = (await e2e.api('GET', '/api/v1/features')).body;
    expect(features.sinks).toEqual({ webhook: true, command: false, temporal_workflow: true, memory: true });
    expect(features.sink_kinds.find((k: { kind: string }) => k.kind === 'memory')).toMatchObject({
      label: 'In-memory channel',
      enabled: true,
      fields: [
        { name: 'channel', type: 'text', required: true },
        { name: 'message', type: 'textarea' },
      ],
    });
  });
});
