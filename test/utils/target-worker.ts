import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { resolve } from 'node:path';
import { temporalAddress } from './stack';

let bundle: Promise<{ code: string }> | null = null;

/**
 * A team's own Temporal worker (test/fixtures/target-workflows) on a task queue of its own, on the
 * shared dev server, and a plain client to look at what it ran.
 */
export async function startTargetWorker(taskQueue = `target-${process.pid}-${Math.random().toString(36).slice(2, 8)}`) {
  bundle ??= bundleWorkflowCode({
    workflowsPath: resolve(__dirname, '../fixtures/target-workflows/workflows.ts'),
    logger: new DefaultLogger('WARN'),
  });
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: await bundle,
  });
  const running = worker.run();
  const clientConnection = await Connection.connect({ address: temporalAddress() });
  const client = new Client({ connection: clientConnection, namespace: 'default' });
  return {
    taskQueue,
    client,
    /** Every execution (all runs) of a workflow id, newest first. */
    async executions(workflowId: string) {
      const found = [];
      for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
        found.push(execution);
      }
      return found;
    },
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await clientConnection.close();
    },
  };
}

export type TargetWorker = Awaited<ReturnType<typeof startTargetWorker>>;
