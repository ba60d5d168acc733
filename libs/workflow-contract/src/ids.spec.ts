import fc from 'fast-check';
import { isId, newId, occurrenceRunId } from './ids';

describe('occurrenceRunId', () => {
  const jobId = newId('job', Date.parse('2026-11-01T00:00:00Z'));

  it('should name one occurrence the same way every time', () => {
    const at = Date.parse('2026-11-26T09:00:00.000Z');
    expect(occurrenceRunId(jobId, at)).toBe(occurrenceRunId(jobId, at));
    expect(isId('run', occurrenceRunId(jobId, at))).toBe(true);
  });

  it('should carry the scheduled instant as the ULID time, so run ids sort by occurrence', () => {
    const earlier = occurrenceRunId(jobId, Date.parse('2026-11-26T09:00:00Z'));
    const later = occurrenceRunId(jobId, Date.parse('2026-11-26T09:00:01Z'));
    expect(earlier < later).toBe(true);
    expect(earlier.slice(0, 14)).toBe(newId('run', Date.parse('2026-11-26T09:00:00Z')).slice(0, 14));
  });

  it('should give different jobs at the same instant different ids', () => {
    const at = Date.parse('2026-11-26T09:00:00Z');
    const ids = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      ids.add(occurrenceRunId(`job_${String(i).padStart(26, '0')}`, at));
    }
    expect(ids.size).toBe(5_000);
  });

  it('should be a valid run id for any job id and instant (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 47 }), (job, at) => {
        const id = occurrenceRunId(job, at);
        return isId('run', id) && id === occurrenceRunId(job, at);
      }),
    );
  });
});
