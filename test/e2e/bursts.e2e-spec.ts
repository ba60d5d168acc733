import { Client, Connection } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { waitFor, scheduledAtOf, WebhookReceiver } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Bursts prepared ahead (issue 25; docs/architecture.md → Bursts prepared ahead), end to end: 20
 * jobs share every 10 s instant. At 4 preparations a second the burst is spread over 5 s before
 * the base lead, so after the first instant (which teaches the estimate) runs are opened seconds
 * ahead, each job at its own lead, while every request still leaves at or after its instant and
 * each occurrence is delivered once.
 */
const JOBS = 20;
const RATE = 4;

describe('bursts prepared ahead', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({ config: { scheduler: { prepare_ahead: '1s', prepare_rate: RATE } } });
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  it('should open the runs of a burst spread over the time before its instant and send none early', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await api('POST', '/api/v1/jobs', {
        name: `burst-${i}`,
        schedule: { expr: '*/10 * * * * ?', kind: 'quartz' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/burst` } },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    // Three instants each: the first counts the burst, the later ones are prepared by it.
    await waitFor(() => ids.every((id) => receiver.forJob(id).length >= 3), 90_000);
    for (const id of ids) {
      await api('DELETE', `/api/v1/jobs/${id}`);
    }

    const requests = ids.flatMap((id) => receiver.forJob(id));
    for (const request of requests) {
      expect(request.at).toBeGreaterThanOrEqual(scheduledAtOf(request));
    }
    const occurrences = requests.map((r) => `${r.headers['svc-job-id']}@${scheduledAtOf(r)}`);
    expect(new Set(occurrences).size).toBe(occurrences.length);

    // How long before its instant each run was opened (claimed_at: the row's write by the job
    // workflow), for the instants after each job's first.
    const rows: Array<{ id: string; job_id: string; ahead_ms: number; first: boolean }> = await stack.dataSource.query(
      `SELECT id, job_id, EXTRACT(EPOCH FROM (scheduled_at - claimed_at)) * 1000 AS ahead_ms,
              scheduled_at = min(scheduled_at) OVER (PARTITION BY job_id) AS first
         FROM runs WHERE job_id = ANY($1) AND trigger = 'schedule' AND status = 'succeeded'`,
      [ids],
    );
    const later = rows.filter((r) => !r.first).map((r) => Number(r.ahead_ms));
    expect(later.length).toBeGreaterThanOrEqual(JOBS);
    // Spread: 20 jobs at 4 a second take 5 s; the base lead alone would open them all ~1 s ahead.
    expect(Math.max(...later)).toBeGreaterThan(3_000);
    expect(new Set(later.map((ms) => Math.round(ms / 500))).size).toBeGreaterThan(3);
    // Never more than the spread plus the base lead (and the gap of 10 s less 1 s).
    expect(Math.max(...later)).toBeLessThanOrEqual(9_000);

    // The attempt of the run opened furthest ahead waited without heartbeating: its heartbeat
    // timeout, as the run workflow scheduled it, covers its wait on top of the usual 10 s, and so
    // does its start-to-close on top of the 150 s budget (a lead is not bounded by the budget).
    const furthest = rows.filter((r) => !r.first).sort((a, b) => Number(b.ahead_ms) - Number(a.ahead_ms))[0];
    const connection = await Connection.connect({ address: stack.config.temporal.address });
    try {
      const client = new Client({ connection, namespace: stack.config.temporal.namespace });
      const { events } = await client.workflow.getHandle(furthest.id).fetchHistory();
      const scheduled = events!.find(
        (e) => e.activityTaskScheduledEventAttributes,
      )!.activityTaskScheduledEventAttributes!;
      const heartbeatTimeoutMs = tsToMs(scheduled.heartbeatTimeout);
      expect(heartbeatTimeoutMs).toBeGreaterThan(10_000 + Number(furthest.ahead_ms) - 2_000);
      expect(heartbeatTimeoutMs).toBeLessThanOrEqual(10_000 + Number(furthest.ahead_ms) + 500);
      const startToCloseMs = tsToMs(scheduled.startToCloseTimeout);
      expect(startToCloseMs - heartbeatTimeoutMs).toBe(150_000 - 10_000);
    } finally {
      await connection.close();
    }
  }, 180_000);
});
