import { SecretsCipher } from '@svc/common/secrets-crypto';
import { defaultSinkRegistry } from '@svc/delivery';
import { randomBytes } from 'node:crypto';
import { authFor, KIT_WORKSPACE, OTHER_WORKSPACE, type SecretRow, serviceOverKit } from '../../../../test/kit';
import { MAX_SECRETS_PER_WORKSPACE } from './secret-limits';
import { SecretsService } from './secrets.service';

/** SecretsService over the in-memory kit: the value encrypted, the cap, the 409 for a used secret. */

describe('SecretsService', () => {
  const auth = authFor();
  const cipher = SecretsCipher.fromKey(randomBytes(32).toString('hex'));
  const kit = serviceOverKit((db) => {
    const { transactions, secrets, audit } = db.repositories;
    return new SecretsService(transactions, secrets, audit, cipher, defaultSinkRegistry());
  });

  const row = (name: string, workspaceId = KIT_WORKSPACE) =>
    kit.db.table<SecretRow>('secrets').get(`${workspaceId}/${name}`);

  describe('put', () => {
    it('should store the value encrypted to its workspace and name, answer no value, and audit the name only', async () => {
      const { created, secret } = await kit.service.put(auth, 'API_TOKEN', { value: 'hunter2' });
      expect(created).toBe(true);
      expect(secret).toEqual({ name: 'API_TOKEN', created_at: expect.any(String), updated_at: expect.any(String) });
      expect(row('API_TOKEN')!.value.toString('latin1')).not.toContain('hunter2');
      expect(cipher.decrypt(row('API_TOKEN')!.value, { workspaceId: KIT_WORKSPACE, name: 'API_TOKEN' })).toBe(
        'hunter2',
      );
      expect(() =>
        cipher.decrypt(row('API_TOKEN')!.value, { workspaceId: OTHER_WORKSPACE, name: 'API_TOKEN' }),
      ).toThrow();
      expect(kit.db.audited()).toEqual([
        { actor: auth.actor, action: 'secret.update', target: 'API_TOKEN', details: { created: true } },
      ]);
      expect(JSON.stringify(kit.db.tables.audit)).not.toContain('hunter2');
    });

    it('should replace the value of an existing secret (created: false)', async () => {
      await kit.service.put(auth, 'API_TOKEN', { value: 'one' });
      const { created } = await kit.service.put(auth, 'API_TOKEN', { value: 'two' });
      expect(created).toBe(false);
      expect(cipher.decrypt(row('API_TOKEN')!.value, { workspaceId: KIT_WORKSPACE, name: 'API_TOKEN' })).toBe('two');
      expect(kit.db.audited().map((entry) => entry.details)).toEqual([{ created: true }, { created: false }]);
    });

    it('should refuse a secret beyond the cap (403 limit_exceeded) and write nothing, yet replace one at the cap', async () => {
      for (let i = 0; i < MAX_SECRETS_PER_WORKSPACE; i += 1) {
        await kit.service.put(auth, `S${i}`, { value: 'v' });
      }
      await expect(kit.service.put(auth, 'ONE_MORE', { value: 'v' })).rejects.toMatchObject({
        status: 403,
        body: { code: 'limit_exceeded', limit: 'max_secrets_per_workspace', value: MAX_SECRETS_PER_WORKSPACE },
      });
      expect(row('ONE_MORE')).toBeUndefined();
      expect(kit.db.audited()).toHaveLength(MAX_SECRETS_PER_WORKSPACE);
      await expect(kit.service.put(auth, 'S0', { value: 'new' })).resolves.toMatchObject({ created: false });
      await expect(kit.service.put(authFor(OTHER_WORKSPACE), 'ONE_MORE', { value: 'v' })).resolves.toMatchObject({
        created: true,
      });
    });
  });

  describe('remove', () => {
    it('should delete an unused secret and audit it', async () => {
      await kit.service.put(auth, 'API_TOKEN', { value: 'v' });
      await kit.service.remove(auth, 'API_TOKEN');
      expect(row('API_TOKEN')).toBeUndefined();
      expect(kit.db.audited()[1]).toEqual({
        actor: auth.actor,
        action: 'secret.delete',
        target: 'API_TOKEN',
        details: {},
      });
    });

    it('should refuse to delete a secret a job uses (409 conflict naming the job) and keep it', async () => {
      await kit.service.put(auth, 'API_TOKEN', { value: 'v' });
      const job = kit.db.addJob('active', {
        sinkConfig: { url: 'https://example.com/hook', headers: { Authorization: 'Bearer {{secret.API_TOKEN}}' } },
      });
      const refused = kit.service.remove(auth, 'API_TOKEN');
      await expect(refused).rejects.toMatchObject({ status: 409, body: { code: 'conflict' } });
      await expect(refused).rejects.toThrow(`Secret API_TOKEN is used by job ${job.id} ("nightly")`);
      expect(row('API_TOKEN')).toBeDefined();
      expect(kit.db.audited().map((entry) => entry.action)).toEqual(['secret.update']);
    });

    it('should name ten jobs and count the rest in the 409', async () => {
      await kit.service.put(auth, 'API_TOKEN', { value: 'v' });
      for (let i = 0; i < 12; i += 1) {
        kit.db.addJob('active', { sinkConfig: { url: 'https://example.com/hook', body: '{{secret.API_TOKEN}}' } });
      }
      await expect(kit.service.remove(auth, 'API_TOKEN')).rejects.toThrow(
        /^Secret API_TOKEN is used by 12 jobs: .* and 2 more;/,
      );
    });

    it('should not count a job whose config only contains a longer name', async () => {
      await kit.service.put(auth, 'API', { value: 'v' });
      kit.db.addJob('active', { sinkConfig: { url: 'https://example.com/hook', body: '{{secret.API_TOKEN}}' } });
      await expect(kit.service.remove(auth, 'API')).resolves.toBeUndefined();
    });

    it("should not find another workspace's secret (404 not_found), nor let its jobs block a delete", async () => {
      await kit.service.put(authFor(OTHER_WORKSPACE), 'THEIRS', { value: 'v' });
      await expect(kit.service.remove(auth, 'THEIRS')).rejects.toMatchObject({
        status: 404,
        body: { code: 'not_found', message: 'Secret not found' },
      });
      expect(row('THEIRS', OTHER_WORKSPACE)).toBeDefined();
      await kit.service.put(auth, 'MINE', { value: 'v' });
      kit.db.addJob('active', {
        workspaceId: OTHER_WORKSPACE,
        sinkConfig: { url: 'https://x.test/hook', body: '{{secret.MINE}}' },
      });
      await expect(kit.service.remove(auth, 'MINE')).resolves.toBeUndefined();
    });
  });

  describe('list', () => {
    it("should page the workspace's secret names in order, without values or another workspace's", async () => {
      await kit.service.put(auth, 'B', { value: 'vb' });
      await kit.service.put(auth, 'A', { value: 'va' });
      await kit.service.put(authFor(OTHER_WORKSPACE), 'C', { value: 'vc' });
      const first = await kit.service.list(auth, { limit: 1 });
      expect(first.data.map((s) => s.name)).toEqual(['A']);
      const second = await kit.service.list(auth, { limit: 1, cursor: first.next_cursor! });
      expect(second).toEqual({ data: [expect.objectContaining({ name: 'B' })], next_cursor: null });
      expect(JSON.stringify([first, second])).not.toMatch(/"v[abc]"|value/);
    });
  });
});
