import { DestinationGate, LEASE_MARGIN_MS, MAX_HOLD_MS } from '@svc/orchestration';

/** The worker's side of destination limits (issue 46): one cached lookup per workspace, leases passed through. */
describe('DestinationGate', () => {
  function gate(configured: () => Promise<string[]>) {
    let now = 0;
    const calls = { configured: 0, acquire: [] as unknown[][], release: [] as unknown[][] };
    const destinations = {
      configured: async () => {
        calls.configured += 1;
        return configured();
      },
      acquire: async (...args: unknown[]) => {
        calls.acquire.push(args);
        return { kind: 'taken' as const };
      },
      release: async (...args: unknown[]) => {
        calls.release.push(args);
        return null;
      },
    };
    const subject = new DestinationGate({ destinations, now: () => now, random: () => 0.5, ttlMs: 5_000 });
    return { subject, calls, advance: (ms: number) => (now += ms) };
  }

  it('should read a workspace’s limited destinations once per TTL, shared by concurrent attempts', async () => {
    const { subject, calls, advance } = gate(async () => ['hooks.example.com:443']);
    const answers = await Promise.all([
      subject.limited('ws_1', 'hooks.example.com:443'),
      subject.limited('ws_1', 'other.example.com:443'),
      subject.limited('ws_1', 'hooks.example.com:443'),
    ]);
    expect(answers).toEqual([true, false, true]);
    expect(calls.configured).toBe(1);
    advance(4_999);
    await subject.limited('ws_1', 'hooks.example.com:443');
    expect(calls.configured).toBe(1);
    advance(2);
    await subject.limited('ws_1', 'hooks.example.com:443');
    expect(calls.configured).toBe(2);
    // Workspaces apart.
    expect(await subject.limited('ws_2', 'hooks.example.com:443')).toBe(true);
    expect(calls.configured).toBe(3);
  });

  it('should not keep a failed read', async () => {
    let fail = true;
    const { subject, calls } = gate(async () => {
      if (fail) {
        throw new Error('database away');
      }
      return [];
    });
    await expect(subject.limited('ws_1', 'a:1')).rejects.toThrow('database away');
    fail = false;
    expect(await subject.limited('ws_1', 'a:1')).toBe(false);
    expect(calls.configured).toBe(2);
  });

  it('should lease for the timeout plus the margin, poll with jitter and cap a hold', async () => {
    const { subject, calls } = gate(async () => []);
    await subject.acquire('ws_1', 'a:1', 'run_1:0', 10_000);
    expect(calls.acquire[0]).toEqual(['ws_1', 'a:1', 'run_1:0', 10_000 + LEASE_MARGIN_MS, 1_500]);
    await subject.release('ws_1', 'a:1', 'run_1:0', 10 * MAX_HOLD_MS);
    await subject.release('ws_1', 'a:1', 'run_1:0', null);
    expect(calls.release).toEqual([
      ['ws_1', 'a:1', 'run_1:0', MAX_HOLD_MS],
      ['ws_1', 'a:1', 'run_1:0', null],
    ]);
  });
});
