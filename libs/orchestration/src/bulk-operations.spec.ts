import { matchesSinkHost, operationSummary } from './bulk-operations';

describe('matchesSinkHost (issue 46)', () => {
  const webhook = (url: string) => ({ url });

  it('should match a webhook by host name, whatever its case, port and path', () => {
    expect(matchesSinkHost('webhook', webhook('https://Hooks.Example.com:8443/a?b=c'), 'hooks.example.com')).toBe(true);
    expect(matchesSinkHost('webhook', webhook('https://hooks.example.com.evil.test/'), 'hooks.example.com')).toBe(
      false,
    );
    expect(matchesSinkHost('webhook', webhook('https://api.hooks.example.com/'), 'hooks.example.com')).toBe(false);
  });

  it('should match host and port when a port is given, with the scheme’s default port', () => {
    expect(matchesSinkHost('webhook', webhook('https://hooks.example.com/x'), 'hooks.example.com:443')).toBe(true);
    expect(matchesSinkHost('webhook', webhook('http://hooks.example.com/x'), 'hooks.example.com:80')).toBe(true);
    expect(matchesSinkHost('webhook', webhook('https://hooks.example.com:8443/'), 'hooks.example.com:443')).toBe(false);
  });

  it('should never match other sink kinds or a malformed URL', () => {
    expect(matchesSinkHost('command', { argv: ['hooks.example.com'] }, 'hooks.example.com')).toBe(false);
    expect(matchesSinkHost('webhook', webhook('not a url'), 'hooks.example.com')).toBe(false);
  });
});

describe('operationSummary', () => {
  it('should say the action, the count, the window and the note', () => {
    expect(
      operationSummary({
        action: 'pause',
        matched: 12,
        note: 'receiver maintenance',
        resumeAt: new Date('2026-12-01T06:00:00Z'),
      }),
    ).toBe('pause 12 jobs · until 2026-12-01T06:00:00.000Z · “receiver maintenance”');
    expect(operationSummary({ action: 'retry', matched: 3, note: null, resumeAt: null })).toBe('retry 3 failed runs');
  });
});
