import { formatDuration, parseDuration } from './durations';

describe('durations', () => {
  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['250ms', 250],
    ['1m30s500ms', 90_500],
  ])('should parse %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });

  it.each(['', '10', 'm', '30m1h', '1h1h', '1.5h', '10 m', '-5s', 'abc'])('should refuse %p', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('should format in the normalized form', () => {
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(3_600_000)).toBe('1h');
  });
});
