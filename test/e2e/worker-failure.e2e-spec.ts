import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { randomBytes } from 'node:crypto';
import { type Child, type ServiceEnv, startWorker } from '../utils/processes';
import { waitFor } from '../utils/receiver';
import { startStack, type Stack } from '../utils/stack';

/**
 * A Temporal worker of the worker process that fails for good (docs/operations.md → Temporal
 * connection): the process must not go on half running, its periodic passes alive and some task
 * queues unpolled. The built worker runs in a namespace of its own on the dev server, which is
 * then deleted under it, as a namespace removed or credentials revoked in production: the
 * process logs the failure as `fatal`, stops the rest and exits 1, for its supervisor to restart.
 */
describe('a Temporal worker that fails', () => {
  let stack: Stack;
  let temporal: Connection;
  let worker: Child | undefined;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    temporal = await Connection.connect({ address: stack.config.temporal.address });
  });

  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await temporal?.close();
    await stack?.stop();
  });

  it('should stop the whole worker process with exit code 1', async () => {
    const namespace = `svc-failing-${randomBytes(4).toString('hex')}`;
    await temporal.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await waitFor(
      () =>
        temporal.workflowService.describeNamespace({ namespace }).then(
          () => true,
          () => false,
        ),
      30_000,
    );
    const env: ServiceEnv = {
      databaseUrl: stack.config.database.url,
      temporalAddress: stack.config.temporal.address,
      taskQueue: `failing-${namespace}`,
      // Its other workers' polls may never end with the namespace gone: the stop is bounded by
      // the grace time (plus 10 s), short here.
      extra: { TEMPORAL_NAMESPACE: namespace, WORKER_SHUTDOWN_GRACE_TIME: '5s' },
    };
    worker = await startWorker(env);

    await temporal.operatorService.deleteNamespace({ namespace });
    const exit = await Promise.race([
      worker.exited,
      // The server notices the deletion within a minute or two, then the SDK retries the failing
      // polls for about a minute before it gives the worker up.
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 300_000).unref()),
    ]);
    if (!exit) {
      throw new Error(`the worker still runs 300 s after its namespace went:\n${worker.output.slice(-4_000)}`);
    }
    expect(exit).toEqual({ code: 1, signal: null });
    const fatal = worker.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.level === 'fatal');
    expect(fatal?.msg).toMatch(/worker stopped: .+; stopping the worker process$/);
  }, 360_000);
});
