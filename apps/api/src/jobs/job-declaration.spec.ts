import { JobEntity } from '@svc/persistence';
import type { JobSettingsColumns } from '@svc/orchestration';
import { jobSettings } from '../../../../test/kit';
import { declarationChanges, declaredColumns, same } from './job-declaration';
import { KeyedMutex } from './keyed-mutex';

// Issue 42: how a declaration (PUT by key, a job of an apply) compares with the stored job.

const ANCHOR = jobSettings().scheduleAnchor;

/** The kit's job settings, with two tags, two headers, another schedule and no auto-disable. */
function columns(overrides: Partial<JobSettingsColumns> = {}): JobSettingsColumns {
  return jobSettings({
    tags: ['a', 'b'],
    scheduleExpr: 'every 5 minutes',
    scheduleCanonical: '*/5 * * * *',
    scheduleDescription: 'every 5 minutes',
    sinkConfig: { url: 'https://a.example.com/h', method: 'POST', headers: { 'X-A': '1', 'X-B': '2' } },
    autoDisableThreshold: null,
    ...overrides,
  });
}

function stored(overrides: Partial<JobEntity> = {}): JobEntity {
  return Object.assign(new JobEntity(), columns(), {
    id: 'job_1',
    workspaceId: 'ws_1',
    key: 'k',
    managedBy: 'git:jobs.yaml',
    state: 'paused',
    version: 4,
    ...overrides,
  });
}

describe('declarationChanges', () => {
  it('should find nothing when the declaration is what is stored, whatever the key order of maps', () => {
    const declared = columns({
      scheduleAnchor: new Date(), // a new declaration is compiled now; the anchor is not a setting
      sinkConfig: { headers: { 'X-B': '2', 'X-A': '1' }, method: 'POST', url: 'https://a.example.com/h' },
    });
    expect(declarationChanges(stored(), declared)).toEqual([]);
  });

  it('should name every changed field by its path, in a stable order', () => {
    const declared = columns({
      name: 'renamed',
      tags: ['b', 'a'],
      scheduleExpr: 'every 10 minutes',
      sinkConfig: { url: 'https://b.example.com/h', method: 'POST' },
      retry: { ...columns().retry, max_attempts: 5 },
      timeoutMs: 10_000,
    });
    expect(declarationChanges(stored(), declared, 'git:jobs.yaml')).toEqual([
      'name',
      'tags',
      'timeout',
      'schedule.expr',
      'sink.config.headers',
      'sink.config.url',
      'retry.max_attempts',
    ]);
  });

  it('should name a change of sink kind once with the whole config, and a change of owner', () => {
    const declared = columns({ sinkKind: 'command', sinkConfig: { argv: ['true'] } });
    expect(declarationChanges(stored(), declared, 'app:other')).toEqual(['sink.kind', 'sink.config', 'managed_by']);
  });

  it('should keep the stored anchor when the schedule is the same, and take the new one when it changed', () => {
    const now = new Date('2026-06-01T00:00:00.000Z');
    expect(declaredColumns(stored(), columns({ scheduleAnchor: now })).scheduleAnchor).toEqual(ANCHOR);
    expect(
      declaredColumns(stored(), columns({ scheduleAnchor: now, scheduleTimezone: 'Europe/Berlin' })).scheduleAnchor,
    ).toEqual(now);
  });

  it('should never compare state, version or the signing secret: what an operator set stays', () => {
    const job = stored({ state: 'disabled', version: 9, signingSecrets: [{ secret: 'whsec_x', expires_at: null }] });
    expect(declarationChanges(job, columns())).toEqual([]);
  });
});

describe('same', () => {
  it('should compare JSON values deeply, object keys in any order, list order kept', () => {
    expect(same({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(same([1, 2], [2, 1])).toBe(false);
    expect(same({ a: undefined }, {})).toBe(true);
    expect(same(null, {})).toBe(false);
    expect(same('30s', '30s')).toBe(true);
  });
});

describe('KeyedMutex', () => {
  it('should run the work of one key one at a time, in order, and other keys beside it', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const step = (name: string, ms: number) => async () => {
      log.push(`${name}+`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`${name}-`);
      return name;
    };
    const results = await Promise.all([
      mutex.run('a', step('a1', 20)),
      mutex.run('a', step('a2', 1)),
      mutex.run('b', step('b1', 5)),
      mutex.run('a', () => Promise.reject(new Error('a3 failed'))).catch((err: Error) => err.message),
      mutex.run('a', step('a4', 1)),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1', 'a3 failed', 'a4']);
    const a = log.filter((entry) => entry.startsWith('a'));
    expect(a).toEqual(['a1+', 'a1-', 'a2+', 'a2-', 'a4+', 'a4-']);
    expect(log.indexOf('b1+')).toBeLessThan(log.indexOf('a1-')); // another key does not wait
  });
});
