import { newId } from '@svc/workflow-contract/ids';
import type { RunEntity } from '@svc/persistence';
import { authFor, kitConfig, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import { RunsService } from './runs.service';
import type { StuckRunsService } from './stuck-runs.service';

/** RunsService over the in-memory kit: what it reads, where a stuck list goes, and 404s. */
describe('RunsService', () => {
  const auth = authFor();
  let stuck: { list: jest.Mock };
  const kit = serviceOverKit((db) => {
    stuck = { list: jest.fn(async () => ({ data: [], next_cursor: null })) };
    const { runs, jobs } = db.repositories;
    return new RunsService(runs, jobs, stuck as unknown as StuckRunsService, kitConfig());
  });

  /** A run of `jobId` scheduled `hour` hours into 2026. */
  const run = (jobId: string, hour: number, extra: Partial<RunEntity> = {}) => {
    const scheduledAt = new Date(Date.UTC(2026, 0, 1, hour));
    return kit.db.addRun({ id: newId('run', scheduledAt.getTime()), jobId, scheduledAt, ...extra });
  };

  describe('list', () => {
    it('should page runs newest first with a cursor that continues after the last one', async () => {
      const job = kit.db.addJob('active');
      const [r1, r2, r3] = [run(job.id, 1), run(job.id, 2), run(job.id, 3)];
      const first = await kit.service.list(auth, { limit: 2 });
      expect(first.data.map((r) => r.id)).toEqual([r3.id, r2.id]);
      const second = await kit.service.list(auth, { limit: 2, cursor: first.next_cursor! });
      expect(second.data.map((r) => r.id)).toEqual([r1.id]);
      expect(second.next_cursor).toBeNull();
    });

    it("should list none of another workspace's runs", async () => {
      const job = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      run(job.id, 1, { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
    });

    it('should filter by status and job, and answer an empty list for a job id of another format', async () => {
      const job = kit.db.addJob('active');
      const failed = run(job.id, 1, { status: 'failed' });
      run(job.id, 2, { status: 'succeeded' });
      expect((await kit.service.list(auth, { status: 'failed' })).data.map((r) => r.id)).toEqual([failed.id]);
      expect((await kit.service.list(auth, { job_id: job.id })).data).toHaveLength(2);
      await expect(kit.service.list(auth, { job_id: 'run_not_a_job' })).resolves.toEqual({
        data: [],
        next_cursor: null,
      });
    });

    it('should hand ?stuck=true to StuckRunsService and read nothing itself', async () => {
      const query = { stuck: true, limit: 5 };
      await kit.service.list(auth, query);
      expect(stuck.list).toHaveBeenCalledWith(auth, query);
    });
  });

  describe('listForJob', () => {
    it('should list the runs of a deleted job that has runs (history outlives the job)', async () => {
      const deleted = newId('job');
      const r = run(deleted, 1);
      const page = await kit.service.listForJob(auth, deleted, {});
      expect(page.data.map((item) => item.id)).toEqual([r.id]);
    });

    it('should answer 404 not_found for a job that neither exists nor has runs, here', async () => {
      const theirs = kit.db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      run(theirs.id, 1, { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.listForJob(auth, theirs.id, {})).rejects.toMatchObject({
        status: 404,
        body: { code: 'not_found', message: 'Job not found' },
      });
    });
  });

  describe('get', () => {
    it('should answer the run with its attempts', async () => {
      const job = kit.db.addJob('active');
      const r = run(job.id, 1, { status: 'succeeded' });
      await expect(kit.service.get(auth, r.id)).resolves.toMatchObject({
        id: r.id,
        job_id: job.id,
        status: 'succeeded',
        attempts: [],
      });
    });

    it("should not find another workspace's run (404 not_found)", async () => {
      const r = run('job_x', 1, { workspaceId: OTHER_WORKSPACE });
      await expect(kit.service.get(auth, r.id)).rejects.toMatchObject({ status: 404, body: { code: 'not_found' } });
    });
  });
});
