import { SecretsCipher } from '@svc/common/secrets-crypto';
import { AttemptEntity, RunEntity } from '@svc/persistence';
import type { RunActivities } from '@svc/workflow-contract/activity-types';
import { randomBytes } from 'node:crypto';
import {
  type ActivityHarness,
  quietActivityEnvironment,
  runActivitiesOf,
  runInputOf,
  startActivityHarness,
} from '../../test/activity-harness';

/**
 * `{{secret.NAME}}` at send time (issue #9): the attempt activity decrypts the secrets the job's
 * sink references from the encrypted store, and a value it cannot use fails the attempt fatally
 * with an error that names the secret, never a value.
 */
describe('run activities: secrets at send time', () => {
  let h: ActivityHarness;
  let activities: RunActivities;
  const cipher = () => SecretsCipher.fromKey(h.config.secrets.encryption_key!);

  beforeAll(async () => {
    h = await startActivityHarness();
    activities = runActivitiesOf(h);
  });

  afterAll(async () => {
    await h?.stop();
  });

  async function putSecret(name: string, value: string, under: SecretsCipher = cipher()): Promise<void> {
    await h.ds.query(
      `INSERT INTO secrets (workspace_id, name, value_encrypted) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, name) DO UPDATE SET value_encrypted = EXCLUDED.value_encrypted`,
      [h.workspaceId, name, under.encrypt(value, { workspaceId: h.workspaceId, name })],
    );
  }

  function attempt(row: { id: string; jobId: string; workspaceId: string; scheduledAt: string | Date }) {
    return quietActivityEnvironment().run(activities.runAttempt, runInputOf(row));
  }

  const attemptsOf = (runId: string) => h.ds.manager.find(AttemptEntity, { where: { runId }, order: { n: 'ASC' } });
  const requestsTo = (path: string) => h.receiver.requests.filter((r) => r.url === path);

  it('should send the decrypted values of the referenced secrets in headers and body', async () => {
    await putSecret('API_TOKEN', 'tok-send-time-1');
    await putSecret('UNUSED', 'never-decrypted');
    const job = await h.insertJob({
      sinkConfig: {
        url: `${h.receiver.url}/ok-secrets`,
        headers: { Authorization: 'Bearer {{ secret.API_TOKEN }}' },
        body: '{"t":"{{secret.API_TOKEN}}","run":"{{run.id}}"}',
      },
    });
    const row = await h.openRun(job);
    await expect(attempt(row)).resolves.toMatchObject({ status: 'succeeded' });
    const [request] = requestsTo('/ok-secrets');
    expect(request.headers.authorization).toBe('Bearer tok-send-time-1');
    expect(JSON.parse(request.body)).toEqual({ t: 'tok-send-time-1', run: row.id });
    const [only] = await attemptsOf(row.id);
    expect(only.requestSummary).not.toContain('tok-send-time-1');
  });

  it('should use the value stored at send time, not at job creation', async () => {
    await putSecret('ROTATING', 'first-value');
    const job = await h.insertJob({
      sinkConfig: { url: `${h.receiver.url}/ok-rotating`, headers: { 'X-Key': '{{secret.ROTATING}}' } },
    });
    await putSecret('ROTATING', 'second-value');
    await attempt(await h.openRun(job));
    expect(requestsTo('/ok-rotating')[0].headers['x-key']).toBe('second-value');
  });

  it('should fail fatally without sending when a value cannot be decrypted (another key)', async () => {
    const otherKey = SecretsCipher.fromKey(randomBytes(32).toString('base64'));
    await putSecret('FOREIGN', 'foreign-value', otherKey);
    const job = await h.insertJob({
      sinkConfig: { url: `${h.receiver.url}/ok-foreign`, headers: { 'X-Key': '{{secret.FOREIGN}}' } },
    });
    const row = await h.openRun(job);
    await expect(attempt(row)).resolves.toMatchObject({ status: 'failed' });
    expect(requestsTo('/ok-foreign')).toHaveLength(0);
    const error = 'secret "FOREIGN" cannot be decrypted with the configured secrets.encryption_key';
    expect(await attemptsOf(row.id)).toEqual([expect.objectContaining({ n: 0, outcome: 'fatal', error })]);
    expect(await h.ds.manager.findOneByOrFail(RunEntity, { id: row.id })).toMatchObject({
      status: 'failed',
      lastError: error,
    });
  });

  it('should fail fatally without sending when a secret was deleted after the job was saved', async () => {
    await putSecret('DOOMED', 'doomed-value');
    const job = await h.insertJob({
      sinkConfig: { url: `${h.receiver.url}/ok-doomed`, body: 'k={{secret.DOOMED}}' },
    });
    // The API refuses to delete a secret in use (409); this is the row vanishing anyway.
    await h.ds.query(`DELETE FROM secrets WHERE workspace_id = $1 AND name = 'DOOMED'`, [h.workspaceId]);
    const row = await h.openRun(job);
    await expect(attempt(row)).resolves.toMatchObject({ status: 'failed' });
    expect(requestsTo('/ok-doomed')).toHaveLength(0);
    expect(await attemptsOf(row.id)).toEqual([
      expect.objectContaining({ outcome: 'fatal', error: 'body: unknown secret "DOOMED"' }),
    ]);
  });

  it('should fail fatally when a secret value would put a line break into a header', async () => {
    await putSecret('MULTILINE', 'a\r\nX-Injected: 1');
    const job = await h.insertJob({
      sinkConfig: { url: `${h.receiver.url}/ok-multiline`, headers: { 'X-Key': '{{secret.MULTILINE}}' } },
    });
    const row = await h.openRun(job);
    await expect(attempt(row)).resolves.toMatchObject({ status: 'failed' });
    expect(requestsTo('/ok-multiline')).toHaveLength(0);
    const [only] = await attemptsOf(row.id);
    expect(only.error).toBe('header "X-Key": the rendered value contains a line break or another control character');
  });
});
