import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { buildConfig } from '@svc/common';
import { processSinkRegistry, SinkRegistry } from '@svc/delivery';
import { resolve } from 'node:path';
import { loadSinkModules, SinkKindsModule } from '../src';
import { MemorySinkModule } from '../../../test/fixtures/memory-sink/memory-sink.module';

const FIXTURE = resolve(__dirname, '../../../test/fixtures/memory-sink/memory-sink.module.ts');

describe('SinkKindsModule', () => {
  it('registers the built-in kinds and those of the modules sinks.modules names', async () => {
    const config = buildConfig({ sinks: { modules: [FIXTURE] } }, {});
    const app = await NestFactory.createApplicationContext(SinkKindsModule.forRoot(config), { logger: false });
    try {
      const registry = app.get(SinkRegistry);
      expect(registry.names()).toEqual(['webhook', 'command', 'temporal_workflow', 'memory']);
      // Code without the registry at hand (Temporal displays) reads the same one.
      expect(processSinkRegistry()).toBe(registry);
      expect(registry.get('memory')!.describe({ channel: 'ops' })).toBe('memory #ops');
    } finally {
      await app.close();
    }
  });

  it('loads the Nest modules a file exports, and refuses a file that exports none', () => {
    expect(loadSinkModules([FIXTURE])).toEqual([MemorySinkModule]);
    expect(() => loadSinkModules([resolve(__dirname, '../../delivery/src/templating.ts')])).toThrow(
      'exports no Nest module',
    );
  });
});
