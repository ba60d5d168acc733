import { attemptLabel, attemptsMade, disabledSentence, urlAtAGlance } from './format';

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
