import { newId } from '@svc/workflow-contract/ids';
import { addLogFields, createLogger } from '@svc/common/logging';
import Fastify, { type FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { addRequestLogging } from './request-logging';

/** A Fastify app with the API's request logging, writing its JSON lines into `lines`. */
async function appWithLogs(lines: Array<Record<string, unknown>>): Promise<FastifyInstance> {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(text) as Record<string, unknown>);
      }
      done();
    },
  });
  const logger = createLogger({ name: 'api', level: 'debug', destination: sink });
  const fastify = Fastify();
  addRequestLogging(fastify, logger);
  fastify.get('/api/v1/jobs/:id', async () => {
    addLogFields({ workspace_id: 'ws_test' }); // as the API-key guard does
    logger.info('inside the handler');
    // after an await, as Nest's guards, pipes and services run
    await new Promise((resolve) => setImmediate(resolve));
    logger.info('after an await');
    return { ok: true };
  });
  fastify.post('/api/v1/schedules/preview', async () => {
    logger.info('inside a quiet route');
    return { ok: true };
  });
  await fastify.ready();
  return fastify;
}

describe('request logging', () => {
  it("should put the request's ids on the lines written while it runs and on its access line", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = await appWithLogs(lines);
    const jobId = newId('job');
    const res = await app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: { 'x-request-id': 'r-1' } });
    expect(res.statusCode).toBe(200);
    const requestId = lines.find((line) => line.msg === 'request')?.request_id;
    expect(typeof requestId).toBe('string');
    const context = { request_id: requestId, job_id: jobId, workspace_id: 'ws_test' };
    expect(lines.find((line) => line.msg === 'inside the handler')).toMatchObject(context);
    expect(lines.find((line) => line.msg === 'after an await')).toMatchObject(context);
    expect(lines.find((line) => line.msg === 'request')).toMatchObject({
      ...context,
      level: 'info',
      method: 'GET',
      route: '/api/v1/jobs/:id',
      status: 200,
      duration_ms: expect.any(Number),
    });
    await app.close();
  });

  it('should keep concurrent requests apart', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = await appWithLogs(lines);
    const ids = [newId('job'), newId('job'), newId('job')];
    await Promise.all(ids.map((id) => app.inject({ method: 'GET', url: `/api/v1/jobs/${id}` })));
    for (const id of ids) {
      const ofJob = lines.filter((line) => line.job_id === id);
      expect(ofJob.map((line) => line.msg).sort()).toEqual(['after an await', 'inside the handler', 'request']);
      expect(new Set(ofJob.map((line) => line.request_id)).size).toBe(1);
    }
    await app.close();
  });

  it('should log the schedule endpoints and unmatched routes at their levels, without a URL', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = await appWithLogs(lines);
    await app.inject({ method: 'POST', url: '/api/v1/schedules/preview?secret=x', payload: {} });
    await app.inject({ method: 'GET', url: '/nowhere?token=y' });
    const access = lines.filter((line) => line.msg === 'request');
    // The public schedule endpoints are quiet: debug access line, no log context of their own.
    expect(access[0]).toMatchObject({ level: 'debug', route: '/api/v1/schedules/preview', status: 200 });
    expect(lines.find((line) => line.msg === 'inside a quiet route')?.request_id).toBeUndefined();
    expect(access[1]).toMatchObject({ level: 'info', route: 'unmatched', status: 404, request_id: expect.any(String) });
    expect(JSON.stringify(lines)).not.toMatch(/secret=x|token=y/);
    await app.close();
  });
});
