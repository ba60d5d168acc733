import { JOB_SETTING_FIELDS } from '@svc/common/job-settings';
import { CliError } from '../errors';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatFor,
  parseJobsFile,
  renderJobsFile,
  SCHEDULE_SETTINGS,
  SETTINGS,
  toFileEntry,
  withOwner,
} from './jobs-file';

describe('jobs file (issue 42)', () => {
  describe('parseJobsFile', () => {
    it('should read YAML as YAML 1.2: on, yes and dates stay strings', () => {
      const file = parseJobsFile(
        [
          'managed_by: git:infra/jobs.yaml',
          'jobs:',
          '  - key: nightly',
          '    name: on',
          '    description: yes',
          '    schedule: { expr: every day at 3am, starts_at: 2026-01-01T00:00:00Z }',
          '    sink: { kind: webhook, config: { url: "https://example.com/hook" } }',
        ].join('\n'),
        'jobs.yaml',
      );
      expect(file).toEqual({
        managed_by: 'git:infra/jobs.yaml',
        jobs: [
          {
            key: 'nightly',
            name: 'on',
            description: 'yes',
            schedule: { expr: 'every day at 3am', starts_at: '2026-01-01T00:00:00Z' },
            sink: { kind: 'webhook', config: { url: 'https://example.com/hook' } },
          },
        ],
      });
    });

    it('should read JSON by its extension and drop the editor’s $schema', () => {
      const text = JSON.stringify({ $schema: 'http://x/jobs-file.json', managed_by: 'app:billing', jobs: [] });
      expect(parseJobsFile(text, 'jobs.JSON')).toEqual({ managed_by: 'app:billing', jobs: [] });
    });

    it('should name the line of a YAML syntax error', () => {
      expect(() => parseJobsFile('jobs:\n  - key: a\n   name: b\n', 'jobs.yaml')).toThrow(
        /^jobs\.yaml is not valid YAML: .*line 3/s,
      );
    });

    it('should refuse a YAML mapping with a key twice', () => {
      expect(() => parseJobsFile('jobs: []\njobs: []\n', 'jobs.yaml')).toThrow(
        /not valid YAML: Map keys must be unique/,
      );
    });

    it('should refuse invalid JSON, a list at the top, and a missing jobs list, as CliErrors', () => {
      expect(() => parseJobsFile('{"jobs": [', 'jobs.json')).toThrow(/^jobs\.json is not valid JSON: /);
      expect(() => parseJobsFile('- key: a\n', 'jobs.yaml')).toThrow(
        'jobs.yaml must be a mapping {managed_by, jobs: [...]}, not a list',
      );
      expect(() => parseJobsFile('', 'jobs.yaml')).toThrow(
        'jobs.yaml must be a mapping {managed_by, jobs: [...]}, not empty',
      );
      expect(() => parseJobsFile('managed_by: x\n', 'jobs.yaml')).toThrow(
        'jobs.yaml: jobs must be a list of jobs, not missing',
      );
      expect(() => parseJobsFile('jobs: {a: 1}\n', 'jobs.yaml')).toThrow(CliError);
    });
  });

  it('should let --managed-by replace or set the owner', () => {
    expect(withOwner({ managed_by: 'a', jobs: [] }, 'b')).toEqual({ managed_by: 'b', jobs: [] });
    expect(withOwner({ jobs: [] }, 'b')).toEqual({ managed_by: 'b', jobs: [] });
    expect(withOwner({ managed_by: 'a', jobs: [] }, undefined)).toEqual({ managed_by: 'a', jobs: [] });
  });

  describe('toFileEntry', () => {
    it('should keep the settings a file declares, in the create body’s order, and drop what the server owns', () => {
      const entry = toFileEntry({
        id: 'job_01',
        key: 'nightly',
        managed_by: 'git:infra/jobs.yaml',
        name: 'Nightly',
        description: null,
        tags: ['ops'],
        schedule: {
          expr: 'every day at 3am',
          kind: 'natural',
          canonical: 'FREQ=DAILY;BYHOUR=3',
          description: 'every day at 03:00',
          timezone: 'UTC',
          starts_at: null,
          ends_at: null,
          count: null,
        },
        sink: { kind: 'webhook', config: { url: 'https://example.com' } },
        retry: { max_attempts: 3 },
        timeout: '30s',
        sla_threshold: null,
        misfire_policy: 'fire_once',
        overlap_policy: 'allow',
        auto_disable_threshold: null,
        start_window: '5m',
        start_offset_ms: 120_000,
        max_concurrent_runs: 2,
        state: 'paused',
        version: 4,
        next_run_at: null,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      expect(Object.keys(entry)).toEqual(['key', ...JOB_SETTING_FIELDS]);
      expect(entry).toMatchObject({ start_window: '5m', max_concurrent_runs: 2 });
      expect(entry.schedule).toEqual({
        expr: 'every day at 3am',
        kind: 'natural',
        timezone: 'UTC',
        starts_at: null,
        ends_at: null,
        count: null,
      });
    });

    it('should export every field the published jobs-file schema lets a file declare, but the write-only secret', () => {
      const schema = JSON.parse(readFileSync(join(__dirname, '../../../../schemas/jobs-file.schema.json'), 'utf8')) as {
        $defs: Record<string, { properties: Record<string, { writeOnly?: boolean }> }>;
      };
      const declarable = (name: string) =>
        Object.entries(schema.$defs[name].properties)
          .filter(([, p]) => !p.writeOnly)
          .map(([field]) => field)
          .sort();
      expect([...SETTINGS].sort()).toEqual(declarable('DeclaredJobDto'));
      expect([...SCHEDULE_SETTINGS].sort()).toEqual(declarable('ScheduleDto'));
    });

    it('should keep a schedule’s calendars, and leave out an empty list (issue 45)', () => {
      const schedule = { expr: '0 9 * * *', timezone: 'UTC', exclude_calendars: ['holidays:de-berlin'] };
      expect(toFileEntry({ name: 'a', schedule }).schedule).toEqual(schedule);
      expect(toFileEntry({ name: 'a', schedule: { ...schedule, exclude_calendars: [] } }).schedule).toEqual({
        expr: '0 9 * * *',
        timezone: 'UTC',
      });
    });
  });

  describe('renderJobsFile', () => {
    const file = { managed_by: 'git:infra/jobs.yaml', jobs: [{ key: 'a', name: 'A', tags: ['x'] }] };

    it('should write YAML with the yaml-language-server hint first, and read back the same', () => {
      const text = renderJobsFile(file, 'yaml', 'http://127.0.0.1:3000/api/v1/schemas/jobs-file.json');
      expect(text.split('\n')[0]).toBe(
        '# yaml-language-server: $schema=http://127.0.0.1:3000/api/v1/schemas/jobs-file.json',
      );
      expect(parseJobsFile(text, 'out.yaml')).toEqual(file);
    });

    it('should write JSON without $schema (the published schema allows no other property), and read back the same', () => {
      const text = renderJobsFile(file, 'json', 'http://h/api/v1/schemas/jobs-file.json');
      expect(Object.keys(JSON.parse(text) as object)).toEqual(['managed_by', 'jobs']);
      expect(parseJobsFile(text, 'out.json')).toEqual(file);
    });

    it('should pick JSON for .json paths and YAML otherwise', () => {
      expect([formatFor('a.json'), formatFor('a.yaml'), formatFor('a.yml'), formatFor(undefined)]).toEqual([
        'json',
        'yaml',
        'yaml',
        'yaml',
      ]);
    });
  });
});
