import { newId } from '@svc/workflow-contract/ids';
import { AuditRetentionTask } from '../../apps/api/src/audit-log/audit-retention.task';
import { waitFor } from '../utils/receiver';
import { apiClient, useStackAndReceiver } from '../utils/stack';

interface Entry {
  id: string;
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
  created_at: string;
}

/**
 * `GET /api/v1/audit-log` (issue #8; spec → Audit log entry; decisions.md → Audit actions): every
 * mutation with its actor, the system's own actions, filters, cursor paging, isolation and the
 * retention purge.
 */
describe('audit log', () => {
  const e2e = useStackAndReceiver({ respond: () => ({ status: 404, body: 'gone' }) });
  let actor: string;

  beforeAll(async () => {
    actor = `key:${(await e2e.api('GET', '/api/v1/me')).body.key.id}`;
  });

  async function entries(query = ''): Promise<Entry[]> {
    const response = await e2e.api('GET', `/api/v1/audit-log?limit=200${query ? `&${query}` : ''}`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  function job(extra: Record<string, unknown> = {}) {
    return {
      name: 'audited',
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/hook` } },
      ...extra,
    };
  }

  describe('what is recorded', () => {
    it('should record every mutation of jobs, keys, secrets and the workspace with actor key:<id>', async () => {
      const created = (await e2e.api('POST', '/api/v1/jobs', job())).body;
      await e2e.api('PATCH', `/api/v1/jobs/${created.id}`, { description: 'now described' });
      await e2e.api('POST', `/api/v1/jobs/${created.id}/pause`);
      await e2e.api('POST', `/api/v1/jobs/${created.id}/resume`);
      await e2e.api('POST', `/api/v1/jobs/${created.id}/trigger`);
      await e2e.api('DELETE', `/api/v1/jobs/${created.id}`);
      const key = (await e2e.api('POST', '/api/v1/api-keys', { name: 'temp' })).body;
      await e2e.api('DELETE', `/api/v1/api-keys/${key.id}`);
      await e2e.api('PUT', '/api/v1/secrets/AUDITED', { value: 'audited-secret-value' });
      await e2e.api('DELETE', '/api/v1/secrets/AUDITED');
      await e2e.api('PATCH', `/api/v1/workspaces/${e2e.stack.workspaceId}`, { name: 'Acme Audited' });

      const mine = (await entries(`actor=${encodeURIComponent(actor)}`)).reverse();
      expect(mine.map((e) => [e.action, e.target])).toEqual([
        ['job.create', created.id],
        ['job.update', created.id],
        ['job.pause', created.id],
        ['job.resume', created.id],
        ['job.trigger', created.id],
        ['job.delete', created.id],
        ['api_key.create', key.id],
        ['api_key.revoke', key.id],
        ['secret.update', 'AUDITED'],
        ['secret.delete', 'AUDITED'],
        ['workspace.update', e2e.stack.workspaceId],
      ]);
      expect(mine.every((e) => e.actor === actor)).toBe(true);
      expect(mine[0]).toEqual({
        id: expect.stringMatching(/^aud_[0-9A-Z]{26}$/),
        actor,
        action: 'job.create',
        target: created.id,
        details: { name: 'audited', sink: 'webhook' },
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(JSON.stringify(mine)).not.toContain('audited-secret-value');
      expect(JSON.stringify(mine)).not.toContain(key.key);
    });

    it('should record the system actions job.auto_disable and job.complete with actor system', async () => {
      const failing = (await e2e.api('POST', '/api/v1/jobs', job({ auto_disable_threshold: 1 }))).body;
      await e2e.api('POST', `/api/v1/jobs/${failing.id}/trigger`);
      const oneOff = (await e2e.api('POST', '/api/v1/jobs', job({ schedule: { expr: 'every 1 second', count: 1 } })))
        .body;
      const system = await waitFor(async () => {
        const found = await entries('actor=system');
        const actions = found.map((e) => `${e.action} ${e.target}`);
        return actions.includes(`job.auto_disable ${failing.id}`) && actions.includes(`job.complete ${oneOff.id}`)
          ? found
          : null;
      }, 30_000);
      expect(system.find((e) => e.action === 'job.auto_disable')?.details).toEqual(
        expect.objectContaining({ consecutive_failures: 1 }),
      );
      // bootstrap's key is by `system` too (svc bootstrap).
      expect(system.map((e) => e.action)).toContain('api_key.create');
    });
  });

  describe('filters and paging', () => {
    it('should filter by action, target and a created_at range', async () => {
      const all = await entries();
      expect(all.length).toBeGreaterThan(10);
      const creates = await entries('action=job.create');
      expect(creates.length).toBeGreaterThan(0);
      expect(creates.every((e) => e.action === 'job.create')).toBe(true);

      const target = creates[0].target;
      const forJob = await entries(`target=${target}`);
      expect(forJob.every((e) => e.target === target)).toBe(true);
      expect(forJob.map((e) => e.action)).toContain('job.create');

      const newest = all[0];
      const from = await entries(`from=${encodeURIComponent(newest.created_at)}`);
      expect(from.map((e) => e.id)).toContain(newest.id);
      expect(from.every((e) => e.created_at >= newest.created_at)).toBe(true);
      const to = await entries(`to=${encodeURIComponent(newest.created_at)}`);
      expect(to.map((e) => e.id)).not.toContain(newest.id);
      expect(to.length + from.length).toBe(all.length);
      expect(await entries('action=job.create&actor=nobody')).toEqual([]);
    });

    it('should list newest first and walk every page with the cursor exactly once', async () => {
      const all = await entries();
      for (let i = 1; i < all.length; i++) {
        expect(all[i - 1].created_at >= all[i].created_at).toBe(true);
      }
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { data: Entry[]; next_cursor: string | null } } = await e2e.api(
          'GET',
          `/api/v1/audit-log?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.status).toBe(200);
        walked.push(...page.body.data.map((e) => e.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(walked).toEqual(all.map((e) => e.id));
      // Default page size 50, and a filter pages too.
      expect((await e2e.api('GET', '/api/v1/audit-log')).body.data.length).toBe(Math.min(50, all.length));
      const firstCreate = await e2e.api('GET', '/api/v1/audit-log?action=job.create&limit=1');
      expect(firstCreate.body.data).toHaveLength(1);
      const secondCreate = await e2e.api(
        'GET',
        `/api/v1/audit-log?action=job.create&limit=1&cursor=${encodeURIComponent(firstCreate.body.next_cursor)}`,
      );
      expect(secondCreate.body.data[0].action).toBe('job.create');
      expect(secondCreate.body.data[0].id).not.toBe(firstCreate.body.data[0].id);
    });

    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    it.each([
      ['an action that is not one', 'action=Job%20Create', 'action'],
      ['a from that is not RFC 3339', 'from=yesterday', 'from'],
      ['a to without offset', 'to=2030-01-01T00:00:00', 'to'],
      ['limit 0', 'limit=0', 'limit'],
      ['limit 201', 'limit=201', 'limit'],
      ['a malformed cursor', 'cursor=abc', 'cursor'],
      [
        'a cursor with an impossible date',
        `cursor=${cursorOf({ at: '2030-02-31T00:00:00.000000Z', id: 'x' })}`,
        'cursor',
      ],
      ['a cursor at year 0', `cursor=${cursorOf({ at: '0000-01-01T00:00:00.000000Z', id: 'x' })}`, 'cursor'],
      ['a cursor without id', `cursor=${cursorOf({ at: '2030-01-01T00:00:00.000000Z' })}`, 'cursor'],
      ['an unknown parameter', 'workspace=ws_x', 'workspace'],
      ['a repeated action', 'action=job.create&action=job.delete', 'action'],
    ])('should answer 400 validation_failed naming the field for %s', async (_, query, field) => {
      const response = await e2e.api('GET', `/api/v1/audit-log?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.fields).toHaveProperty(field);
    });
  });

  describe('isolation', () => {
    it('should show a workspace only its own entries', async () => {
      const other = await e2e.stack.newWorkspaceKey('audit-other');
      const otherApi = apiClient(e2e.stack.baseUrl, other.apiKey);
      await otherApi('PUT', '/api/v1/secrets/THEIRS', { value: 'v' });
      const theirs = (await otherApi('GET', '/api/v1/audit-log')).body.data as Entry[];
      expect(theirs.map((e) => e.action).sort()).toEqual(['api_key.create', 'secret.update']);
      expect((await entries()).map((e) => e.target)).not.toContain('THEIRS');
    });
  });

  describe('retention', () => {
    it('should purge entries older than audit.retention (30 days) from the API process and keep newer ones', async () => {
      const day = 86_400_000;
      const old = [newId('audit'), newId('audit')];
      const recent = newId('audit');
      await e2e.stack.dataSource.query(
        `INSERT INTO audit_log (id, workspace_id, actor, action, target, created_at) VALUES
           ($1, $4, 'system', 'job.complete', 'old-1', $5), ($2, $4, 'system', 'job.complete', 'old-2', $6),
           ($3, $4, 'system', 'job.complete', 'recent', $7)`,
        [
          ...old,
          recent,
          e2e.stack.workspaceId,
          new Date(Date.now() - 31 * day),
          new Date(Date.now() - 90 * day),
          new Date(Date.now() - 29 * day),
        ],
      );
      expect(e2e.stack.config.audit.retention_ms).toBe(30 * day);
      const before = await entries('actor=system&action=job.complete');
      expect(before.map((e) => e.target)).toEqual(expect.arrayContaining(['old-1', 'old-2', 'recent']));

      const deleted = await e2e.stack.app.get(AuditRetentionTask).runOnce();
      expect(deleted).toBe(2);
      const after = (await entries('actor=system&action=job.complete')).map((e) => e.target);
      expect(after).toContain('recent');
      expect(after).not.toContain('old-1');
      expect(after).not.toContain('old-2');
      expect(await e2e.stack.app.get(AuditRetentionTask).runOnce()).toBe(0);
    });
  });
});
