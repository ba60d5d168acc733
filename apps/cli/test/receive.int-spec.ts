import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Child, freePort } from '../../../test/utils/processes';
import { waitFor } from '../../../test/utils/receiver';
import { apiClient, startStack, type Stack } from '../../../test/utils/stack';

/** The built CLI (`npm run build`), as `npx svc` runs it; e2e-style tests run the build. */
const MAIN = resolve(__dirname, '../../../dist/apps/cli/src/main.js');

/**
 * `svc receive` (issue #26, README "Try it"): a real job of the assembled stack delivers to the CLI
 * running as its own process, which prints each signed request and whether its signature verifies.
 */
describe('svc receive', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  const receivers: Child[] = [];

  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack.baseUrl, stack.apiKey);
  });

  afterAll(async () => {
    for (const receiver of receivers) {
      await receiver.kill('SIGTERM');
    }
    await stack?.stop();
  });

  /** `svc receive` as a process, ready once it says where it listens. */
  async function receive(args: string[]): Promise<Child> {
    const child = await Child.start(
      'svc receive',
      process.execPath,
      [MAIN, 'receive', ...args],
      process.env,
      (output) => output.includes('svc receive: listening on'),
    );
    receivers.push(child);
    return child;
  }

  /** The printed block of the request whose first line contains `marker`. */
  function blockOf(output: string, marker: string): string | undefined {
    return output.split(/\n(?=\[)/).find((block) => block.split('\n')[0].includes(marker));
  }

  async function createJob(url: string) {
    const created = await api('POST', '/api/v1/jobs', {
      name: 'watched',
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url } },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; signing_secret: string };
  }

  it('should print the sink test and a real run of a job, each with its verified signature', async () => {
    const port = await freePort();
    const job = await createJob(`http://127.0.0.1:${port}/hook`);
    const receiver = await receive(['--port', String(port), '--secret', job.signing_secret]);
    expect(receiver.output).toContain(`svc receive: listening on http://127.0.0.1:${port} (answering 200;`);

    // The sink test first (sent by the API, records nothing), then a run delivered by the worker.
    const test = await api('POST', `/api/v1/jobs/${job.id}/test`);
    expect(test.body).toMatchObject({ outcome: 'success', status_code: 200, response_body: 'svc receive: 200\n' });
    const sinkTest = await waitFor(() => blockOf(receiver.output, 'POST /hook'));
    expect(sinkTest).toContain(`job ${job.id}`);
    expect(sinkTest).toMatch(/\n {2}signature: verified\n/);
    // Issue 44: marked as a test, its id not printed as a run's (it names no run: 404).
    const [testLine] = sinkTest.split('\n');
    expect(testLine).toMatch(
      /^\[[^\]]+\] SINK TEST {2}POST \/hook {2}test id (run_\S+) \(not a run: a sink test records nothing\) {2}Svc-Attempt 0 /,
    );
    expect(testLine).not.toContain('webhook-id');
    const testId = /test id (run_\S+)/.exec(testLine)![1];
    expect((await api('GET', `/api/v1/runs/${testId}`)).status).toBe(404);

    const trigger = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
    expect(trigger.status).toBe(202);
    const runId = (trigger.body as { run_id: string }).run_id;
    const run = await waitFor(() => blockOf(receiver.output, `webhook-id ${runId}`));
    const [first, signature, body] = run.split('\n');
    expect(first).toMatch(
      new RegExp(
        `^\\[[^\\]]+\\] POST /hook {2}webhook-id ${runId} {2}Svc-Attempt 0 {2}job ${job.id} {2}scheduled \\S+$`,
      ),
    );
    expect(first).not.toContain('SINK TEST');
    expect(signature).toBe('  signature: verified');
    expect(JSON.parse(body.replace(/^ {2}body: /, ''))).toMatchObject({ run_id: runId, job_id: job.id, attempt: 0 });
    // …and the run succeeded on that answer
    await waitFor(async () => (await api('GET', `/api/v1/runs/${runId}`)).body.status === 'succeeded');
  });

  it('should report a signature made with another secret, or over another body, as not verified', async () => {
    const port = await freePort();
    const job = await createJob(`http://127.0.0.1:${port}/other`);
    const wrongSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const receiver = await receive(['--port', String(port), '--secret', wrongSecret]);

    await api('POST', `/api/v1/jobs/${job.id}/test`);
    const signedByOther = await waitFor(() => blockOf(receiver.output, 'POST /other'));
    expect(signedByOther).toContain('\n  signature: NOT VERIFIED: No matching signature found\n');

    // Signed with the receiver's own secret, but the body was changed on the way.
    const headers = signedHeaders(wrongSecret, 'msg_tampered', '{"amount":1}');
    await fetch(`http://127.0.0.1:${port}/tampered`, { method: 'POST', headers, body: '{"amount":1000}' });
    const tampered = await waitFor(() => blockOf(receiver.output, 'POST /tampered'));
    expect(tampered).toContain('webhook-id msg_tampered');
    expect(tampered).toContain('\n  signature: NOT VERIFIED: No matching signature found\n');

    // The same headers over the signed body verify: the check is the signature, not the request.
    await fetch(`http://127.0.0.1:${port}/intact`, { method: 'POST', headers, body: '{"amount":1}' });
    expect(await waitFor(() => blockOf(receiver.output, 'POST /intact'))).toContain('\n  signature: verified\n');
  });

  it('should say so when it checks no signature, and refuse a secret that is not one', async () => {
    const receiver = await receive(['--port', '0']);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(receiver.output)![1];
    await fetch(`${url}/plain`, { method: 'PUT', body: 'hello' });
    expect(await waitFor(() => blockOf(receiver.output, 'PUT /plain'))).toContain(
      '\n  signature: not checked (start svc receive with --secret whsec_… to verify it)\n  body: hello\n',
    );

    const refused = Child.start(
      'svc receive',
      process.execPath,
      [MAIN, 'receive', '--secret', 'not-a-secret'],
      process.env,
      () => false,
    );
    await expect(refused).rejects.toThrow(
      /error: --secret must be a job signing secret: whsec_ followed by base64 \(the job create response\)/,
    );
  });
});

function signedHeaders(secret: string, id: string, body: string): Record<string, string> {
  const at = new Date();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
