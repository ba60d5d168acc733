import { Webhook } from 'standardwebhooks';
import { type ReceivedRequest, waitFor } from '../utils/receiver';
import { apiClient, useStackAndReceiver } from '../utils/stack';

/**
 * `POST /api/v1/jobs/{id}/rotate-signing-secret` (issue #9; spec: Signature 5, Limits → Signing
 * secret overlap) through the real worker and a loopback receiver: after a rotation each delivery
 * carries two `v1,` signatures, one per secret, each verified by `standardwebhooks` alone; once
 * the old secret's 24 hours are over (moved into the past here; the clock itself is covered by
 * libs/delivery/test/signing-rotation.spec.ts) only the new one signs.
 */
describe('signing-secret rotation', () => {
  const e2e = useStackAndReceiver();

  async function createJob(path: string) {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: `rotation ${path}`,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}${path}` } },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; signing_secret: string; version: number };
  }

  /** Triggers a run and returns the request the receiver got for it, once the run succeeded. */
  async function deliver(jobId: string): Promise<ReceivedRequest> {
    const triggered = await e2e.api('POST', `/api/v1/jobs/${jobId}/trigger`);
    expect(triggered.status).toBe(202);
    const runId: string = triggered.body.run_id;
    await waitFor(async () => (await e2e.api('GET', `/api/v1/runs/${runId}`)).body.status === 'succeeded');
    return e2e.receiver.requests.find((r) => r.headers['webhook-id'] === runId)!;
  }

  function verifies(secret: string, request: ReceivedRequest): boolean {
    try {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  }

  const signatures = (request: ReceivedRequest) => String(request.headers['webhook-signature']).split(' ');

  it('should sign with both secrets after a rotation, then with the new one only once the old one expired', async () => {
    const job = await createJob('/rotating');
    const before = await deliver(job.id);
    expect(signatures(before)).toHaveLength(1);
    expect(verifies(job.signing_secret, before)).toBe(true);

    const rotated = await e2e.api('POST', `/api/v1/jobs/${job.id}/rotate-signing-secret`);
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.signing_secret;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(job.signing_secret);
    expect(rotated.body).toMatchObject({ id: job.id, version: job.version, state: 'active' });

    // Shown once: never on a read.
    const read = await e2e.api('GET', `/api/v1/jobs/${job.id}`);
    expect(read.body.signing_secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(newSecret.slice(6));

    const during = await deliver(job.id);
    expect(signatures(during)).toHaveLength(2);
    expect(signatures(during).every((s) => s.startsWith('v1,'))).toBe(true);
    expect(verifies(newSecret, during)).toBe(true);
    expect(verifies(job.signing_secret, during)).toBe(true);

    // 24 hours later (the stored expiry moved into the past): only the new secret signs.
    const [{ expires_at: expiresAt }] = await e2e.stack.dataSource.query(
      `SELECT s->>'expires_at' AS expires_at FROM jobs, jsonb_array_elements(signing_secrets) s
        WHERE id = $1 AND s->>'expires_at' IS NOT NULL`,
      [job.id],
    );
    expect(Date.parse(expiresAt) - Date.parse(rotated.body.updated_at)).toBeGreaterThan(24 * 3_600_000 - 60_000);
    await e2e.stack.dataSource.query(
      `UPDATE jobs SET signing_secrets = (SELECT jsonb_agg(CASE WHEN s->>'expires_at' IS NULL THEN s
                ELSE jsonb_set(s, '{expires_at}', to_jsonb((now() - interval '1 second')::text)) END)
           FROM jsonb_array_elements(signing_secrets) s)
        WHERE id = $1`,
      [job.id],
    );
    const after = await deliver(job.id);
    expect(signatures(after)).toHaveLength(1);
    expect(verifies(newSecret, after)).toBe(true);
    expect(verifies(job.signing_secret, after)).toBe(false);
  });

  it('should sign sink tests with both secrets during the overlap too', async () => {
    const job = await createJob('/rotating-test');
    const newSecret = (await e2e.api('POST', `/api/v1/jobs/${job.id}/rotate-signing-secret`)).body.signing_secret;
    expect((await e2e.api('POST', `/api/v1/jobs/${job.id}/test`)).body.outcome).toBe('success');
    const [request] = e2e.receiver.requests.filter((r) => r.url === '/rotating-test');
    expect(signatures(request)).toHaveLength(2);
    expect(verifies(newSecret, request)).toBe(true);
    expect(verifies(job.signing_secret, request)).toBe(true);
  });

  it('should audit the rotation without any secret', async () => {
    const job = await createJob('/audited');
    const rotated = await e2e.api('POST', `/api/v1/jobs/${job.id}/rotate-signing-secret`);
    const log = await e2e.api('GET', '/api/v1/audit-log?action=job.rotate_signing_secret');
    const entry = log.body.data.find((e: { target: string }) => e.target === job.id);
    expect(entry).toMatchObject({
      actor: expect.stringMatching(/^key:/),
      action: 'job.rotate_signing_secret',
      target: job.id,
      details: { previous_secret_expires_at: expect.any(String), signing_secrets: 2 },
    });
    const [{ dump }] = await e2e.stack.dataSource.query(`SELECT json_agg(a)::text AS dump FROM audit_log a`);
    for (const secret of [job.signing_secret, rotated.body.signing_secret]) {
      expect(dump).not.toContain(secret.slice('whsec_'.length));
    }
  });

  it('should answer 404 for a job of another workspace and change nothing', async () => {
    const job = await createJob('/not-yours');
    const other = await e2e.stack.newWorkspaceKey('rotation-other');
    const res = await apiClient(e2e.stack.baseUrl, other.apiKey)(
      'POST',
      `/api/v1/jobs/${job.id}/rotate-signing-secret`,
    );
    expect(res.status).toBe(404);
    const [{ n }] = await e2e.stack.dataSource.query(
      `SELECT jsonb_array_length(signing_secrets)::int AS n FROM jobs WHERE id = $1`,
      [job.id],
    );
    expect(n).toBe(1);
  });
  it('should sign with a secret the caller chose at create, never echo it, and refuse a malformed one', async () => {
    // What the NestJS module does (docs/nestjs.md → Signing): every replica holds the secret already.
    const own = `whsec_${Buffer.from('a secret every replica shares, 40 bytes!').toString('base64')}`;
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'own secret',
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/own` } },
      signing_secret: own,
    });
    expect(created.status).toBe(201);
    expect(created.body.signing_secret).toBeUndefined();
    const request = await deliver(created.body.id);
    expect(signatures(request)).toHaveLength(1);
    expect(verifies(own, request)).toBe(true);

    const before = await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM jobs`);
    for (const bad of ['whsec_c2hvcnQ=', 'not-a-secret', 42]) {
      const refused = await e2e.api('POST', '/api/v1/jobs', {
        name: 'bad secret',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/bad` } },
        signing_secret: bad,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'validation_failed',
        fields: { signing_secret: expect.any(String) },
      });
    }
    expect(await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM jobs`)).toEqual(before);
  });
});
