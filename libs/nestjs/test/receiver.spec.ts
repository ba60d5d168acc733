import { Webhook } from 'standardwebhooks';
import { NonRetryableError } from '../src/errors';
import { JOB_KEY_HEADER } from '../src/job-set';
import { DeliveryReceiver, type JobHandler } from '../src/receiver';
import type { ScheduledJobContext } from '../src/scheduled-job.decorator';
import { deriveSigningSecret, verifyDelivery } from '../src/verify';

const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

/** A delivery as the service sends it (spec: Webhook request), signed with `secrets`. */
function delivery(
  options: { runId?: string; attempt?: number; key?: string; secrets?: string[]; at?: Date; body?: string } = {},
) {
  const runId = options.runId ?? 'run_01J0000000000000000000000A';
  const attempt = options.attempt ?? 0;
  const at = options.at ?? new Date();
  const body =
    options.body ??
    JSON.stringify({
      run_id: runId,
      job_id: 'job_01J0000000000000000000000B',
      job_name: 'X.y',
      scheduled_at: '2026-11-28T01:00:00Z',
      fired_at: '2026-11-28T01:00:00.010Z',
      attempt,
    });
  const signature = (options.secrets ?? [NEW]).map((secret) => new Webhook(secret).sign(runId, at, body)).join(' ');
  return {
    body: Buffer.from(body),
    headers: {
      'webhook-id': runId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
      'svc-attempt': String(attempt),
      'svc-scheduled-at': '2026-11-28T01:00:00Z',
      [JOB_KEY_HEADER]: options.key ?? 'reports',
    },
  };
}

function receiverWith(call: (context: ScheduledJobContext) => unknown, timeoutMs = 30_000) {
  const calls: ScheduledJobContext[] = [];
  const handler: JobHandler = {
    key: 'reports',
    methodName: 'ReportService.send',
    timeoutMs,
    call: (context) => {
      calls.push(context);
      return call(context);
    },
  };
  return { calls, receiver: new DeliveryReceiver(new Map([['reports', handler]]), [NEW, OLD]) };
}

describe('the receiver', () => {
  it('should call the method once with the occurrence and answer 200', async () => {
    const { calls, receiver } = receiverWith(() => undefined);
    const { body, headers } = delivery({ attempt: 2 });
    await expect(receiver.handle(body, headers)).resolves.toEqual({ status: 200, body: { ok: true } });
    expect(calls).toEqual([
      {
        jobKey: 'reports',
        runId: 'run_01J0000000000000000000000A',
        scheduledAt: new Date('2026-11-28T01:00:00Z'),
        trigger: 'schedule',
        attempt: 2,
        signal: expect.any(AbortSignal),
      },
    ]);
  });

  it('should answer 401 without calling the method for a bad, missing, stale or foreign signature', async () => {
    const { calls, receiver } = receiverWith(() => undefined);
    const good = delivery();
    const tampered = { ...good, body: Buffer.from(good.body.toString().replace('"attempt":0', '"attempt":9')) };
    const unsigned = { ...good, headers: { ...good.headers, 'webhook-signature': undefined } };
    const stale = delivery({ at: new Date(Date.now() - 6 * 60_000) });
    const foreign = delivery({ secrets: [OTHER] });
    for (const request of [tampered, unsigned, stale, foreign]) {
      await expect(receiver.handle(request.body, request.headers)).resolves.toMatchObject({ status: 401 });
    }
    expect(calls).toHaveLength(0);
  });

  it('should accept either secret of the rotation window, and a header carrying both signatures', async () => {
    const { calls, receiver } = receiverWith(() => undefined);
    for (const [n, secrets] of [[OLD], [NEW], [OLD, NEW], [OTHER, NEW]].entries()) {
      const { body, headers } = delivery({ runId: `run_${n}`, secrets });
      await expect(receiver.handle(body, headers)).resolves.toMatchObject({ status: 200 });
    }
    expect(calls).toHaveLength(4);
    expect(verifyDelivery([NEW], delivery({ secrets: [OLD] }).body, delivery({ secrets: [OLD] }).headers)).toBe(false);
  });

  it('should answer a replayed webhook-id without calling the method again, joining one in flight', async () => {
    let release: () => void = () => undefined;
    const { calls, receiver } = receiverWith(() => new Promise<void>((resolve) => (release = resolve)));
    const { body, headers } = delivery();
    const first = receiver.handle(body, headers);
    const concurrent = receiver.handle(body, headers);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(first).resolves.toEqual({ status: 200, body: { ok: true } });
    await expect(concurrent).resolves.toEqual({ status: 200, body: { ok: true, replayed: true } });
    await expect(receiver.handle(body, headers)).resolves.toEqual({ status: 200, body: { ok: true, replayed: true } });
    expect(calls).toHaveLength(1);
  });

  it('should answer a thrown error with 500 and its message, and call the method again on the retry', async () => {
    let failures = 1;
    const { calls, receiver } = receiverWith(() => {
      if (failures-- > 0) {
        throw new Error('ledger locked');
      }
    });
    const first = delivery({ attempt: 0 });
    await expect(receiver.handle(first.body, first.headers)).resolves.toEqual({
      status: 500,
      body: { error: 'ReportService.send: ledger locked' },
    });
    const retry = delivery({ attempt: 1 });
    await expect(receiver.handle(retry.body, retry.headers)).resolves.toEqual({ status: 200, body: { ok: true } });
    expect(calls.map((c) => c.attempt)).toEqual([0, 1]);
  });

  it('should answer NonRetryableError with 422, a status outside the default retry_on', async () => {
    const { receiver } = receiverWith(async () => {
      throw new NonRetryableError('customer deleted');
    });
    const { body, headers } = delivery();
    await expect(receiver.handle(body, headers)).resolves.toEqual({
      status: 422,
      body: { error: 'ReportService.send: customer deleted' },
    });
  });

  it("should abort the method's signal once the job's timeout has passed", async () => {
    const { calls, receiver } = receiverWith(
      (context) =>
        new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason))),
      50,
    );
    const { body, headers } = delivery();
    const answer = await receiver.handle(body, headers);
    expect(calls[0].signal.aborted).toBe(true);
    expect(answer).toEqual({
      status: 500,
      body: { error: "ReportService.send: the job's timeout of 50 ms has passed" },
    });
  });

  it('should answer 404 for a key no method declares', async () => {
    const { calls, receiver } = receiverWith(() => undefined);
    const { body, headers } = delivery({ key: 'removed' });
    await expect(receiver.handle(body, headers)).resolves.toMatchObject({ status: 404 });
    expect(calls).toHaveLength(0);
  });

  it('should derive one signing secret per API key and owner', () => {
    const secret = deriveSigningSecret('svc_key', 'app:billing');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(deriveSigningSecret('svc_key', 'app:billing')).toBe(secret);
    expect(deriveSigningSecret('svc_key', 'app:other')).not.toBe(secret);
    expect(deriveSigningSecret('svc_other', 'app:billing')).not.toBe(secret);
  });
});
