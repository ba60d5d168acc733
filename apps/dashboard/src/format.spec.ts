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
    expect(
      degradedSentences({
        ...ready,
        status: 'unavailable',
        temporal: false,
        dispatcher: 'stopped',
        temporal_error: 'Temporal at t:7233: cannot reach the server (connection refused)',
      }),
    ).toEqual([
      'Temporal is unreachable (Temporal at t:7233: cannot reach the server (connection refused)): nothing is scheduled until it is back.',
    ]);
    expect(
      degradedSentences({ ...ready, status: 'unavailable', dispatcher: 'stopped', writer_backpressure: true }),
    ).toEqual([
      'No worker is polling: scheduled runs wait until one is running.',
      'Deliveries are running late: due runs are waiting for their first attempt.',
    ]);
  });
});
