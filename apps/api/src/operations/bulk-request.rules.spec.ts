import { bulkJobsProblems, recoverProblems } from './bulk-request.rules';
import type { BulkJobsDto, RecoverRunsDto } from './dto/operations.dto';

const NOW = new Date('2026-11-28T12:00:00Z');
const bulk = (body: Partial<BulkJobsDto>) => ({ action: 'pause', filter: {}, ...body }) as BulkJobsDto;

describe('bulkJobsProblems (issue 46)', () => {
  it('should refuse an empty filter unless all: true says every job is meant', () => {
    expect(Object.keys(bulkJobsProblems(bulk({ action: 'delete' }), NOW))).toEqual(['filter']);
    expect(bulkJobsProblems(bulk({ action: 'delete', all: true }), NOW)).toEqual({});
    expect(bulkJobsProblems(bulk({ filter: { tags: ['a'], ids: undefined } }), NOW)).toEqual({});
    // A filter of nulls names nothing either: never a delete of every job by accident.
    const nulls = { tags: null, key_prefix: null } as unknown as BulkJobsDto['filter'];
    expect(Object.keys(bulkJobsProblems(bulk({ action: 'delete', filter: nulls }), NOW))).toEqual(['filter']);
  });

  it('should refuse all: true beside a filter', () => {
    expect(Object.keys(bulkJobsProblems(bulk({ filter: { tags: ['a'] }, all: true }), NOW))).toEqual(['all']);
  });

  it('should refuse a state the action never applies to, by the lifecycle’s own rules', () => {
    const problems = (action: BulkJobsDto['action'], state: string) =>
      Object.keys(bulkJobsProblems(bulk({ action, filter: { state } as BulkJobsDto['filter'] }), NOW));
    expect(problems('pause', 'paused')).toEqual(['filter.state']);
    expect(problems('pause', 'active')).toEqual([]);
    expect(problems('resume', 'active')).toEqual(['filter.state']);
    expect(problems('enable', 'disabled')).toEqual([]);
    expect(problems('trigger', 'disabled')).toEqual(['filter.state']);
    expect(problems('trigger', 'paused')).toEqual([]);
    expect(problems('delete', 'completed')).toEqual([]);
  });

  it('should take resume_at only on a pause, in the future, at most a year ahead', () => {
    const at = (action: BulkJobsDto['action'], resume_at: string) =>
      bulkJobsProblems(bulk({ action, filter: { tags: ['a'] }, resume_at }), NOW).resume_at;
    expect(at('pause', '2026-11-28T13:00:00Z')).toBeUndefined();
    expect(at('pause', '2026-11-28T12:00:00Z')).toBe('must be in the future');
    expect(at('pause', '2028-01-01T00:00:00Z')).toBe('must be at most 366 days ahead');
    expect(at('resume', '2026-11-28T13:00:00Z')).toBe('Only a pause has a maintenance window to end');
  });
});

describe('recoverProblems', () => {
  it('should want `to` after `from`', () => {
    const dto = (from: string, to: string) => ({ filter: { from, to } }) as RecoverRunsDto;
    expect(recoverProblems(dto('2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'))).toEqual({});
    expect(Object.keys(recoverProblems(dto('2026-11-02T00:00:00Z', '2026-11-02T00:00:00Z')))).toEqual(['filter.to']);
  });
});
