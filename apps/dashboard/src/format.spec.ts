import { attemptLabel, attemptsMade, degradedSentences, disabledSentence, urlAtAGlance } from './format';

describe('dashboard wording', () => {
  it('should count attempts from 1 against the budget, the API counting from 0', () => {
    expect(attemptLabel(0, 3)).toBe('attempt 1 of 3');
    expect(attemptLabel(2, 3)).toBe('attempt 3 of 3');
    expect(attemptLabel(0, null)).toBe('attempt 1');
    expect(attemptsMade(2, 5)).toBe('2 of 5');
  });

  it('should say why a job was auto-disabled as a sentence, and keep any other reason', () => {
    expect(disabledSentence('auto_disabled: 3 consecutive failed runs')).toBe(
      'The job was disabled automatically after 3 failed runs in a row, and no longer runs on its schedule.',
    );
    expect(disabledSentence('auto_disabled: 1 consecutive failed runs')).toBe(
      'The job was disabled automatically after a failed run, and no longer runs on its schedule.',
    );
    expect(disabledSentence('maintenance')).toBe('The job is disabled: maintenance.');
    expect(disabledSentence(null)).toBe('The job is disabled and no longer runs on its schedule.');
  });

  it('should show a URL as host and path, without its query', () => {
    expect(urlAtAGlance('https://hooks.example.com:8443/a/b?token=x')).toBe('hooks.example.com:8443/a/b');
    expect(urlAtAGlance('http://127.0.0.1:9/')).toBe('127.0.0.1:9');
    expect(urlAtAGlance('{{secret.URL}}')).toBe('{{secret.URL}}');
  });
});

describe('service banner wording', () => {
  const ready = {
    status: 'ready' as const,
    dispatcher: 'active',
    writer_backpressure: false,
    database_writable: true,
    temporal: true,
    temporal_error: null,
    database_error: null,
  };
  /** What /readyz says while the API cannot reach Temporal, for `temporal_error`. */
  const temporalOut = (temporal_error: string) => ({
    ...ready,
    status: 'unavailable' as const,
    temporal: false,
    dispatcher: 'stopped',
    temporal_error,
  });

  it('should say nothing while the service is ready', () => {
    expect(degradedSentences(ready)).toEqual([]);
  });

  it('should name each dependency that is out, with its cause', () => {
    expect(
      degradedSentences({
        ...ready,
        status: 'unavailable',
        database_writable: false,
        database_error: 'PostgreSQL at db:5432: connect ECONNREFUSED',
      }),
    ).toEqual(['The database is unavailable (PostgreSQL at db:5432: connect ECONNREFUSED): changes cannot be saved.']);
    expect(degradedSentences(temporalOut('Temporal at t:7233: cannot reach the server (connection refused)'))).toEqual([
      'Temporal is unreachable (Temporal at t:7233: cannot reach the server (connection refused)): nothing is scheduled until it is back.',
    ]);
    expect(
      degradedSentences({ ...ready, status: 'unavailable', dispatcher: 'stopped', writer_backpressure: true }),
    ).toEqual([
      'No worker is polling: scheduled runs wait until one is running.',
      'Deliveries are running late: due runs are waiting for their first attempt.',
    ]);
  });

  it("should add what a worker's probe sees degraded, once, also while /readyz says ready", () => {
    const lag = {
      dependency: 'schedule_lag',
      cause: 'the oldest due run has waited 90 s for its first attempt (threshold 60 s)',
      since: '2026-11-28T12:04:00.000Z',
    };
    expect(degradedSentences({ ...ready, service_degraded: [lag] })).toEqual([
      'Schedules are running late (the oldest due run has waited 90 s for its first attempt (threshold 60 s)), since 12:04 UTC.',
    ]);
    const temporal = { dependency: 'temporal', cause: 'Temporal is unreachable', since: '2026-11-28T12:00:00.000Z' };
    // The API reaches Temporal, a worker does not: said.
    expect(degradedSentences({ ...ready, service_degraded: [temporal] })).toEqual([
      'A worker cannot reach Temporal (Temporal is unreachable), since 12:00 UTC.',
    ]);
    // The API's own check says it already: not twice.
    expect(
      degradedSentences({
        ...temporalOut('Temporal at t:7233: cannot reach the server'),
        service_degraded: [temporal],
      }),
    ).toEqual([
      'Temporal is unreachable (Temporal at t:7233: cannot reach the server): nothing is scheduled until it is back.',
    ]);
  });
});
