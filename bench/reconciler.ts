/**
 * The reconciler's cost as the number of jobs grows (issue #14: "must scale to 100k jobs").
 * Not a test. Run against a Temporal server of your own (a dev server is fine):
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 node -r @swc-node/register bench/reconciler.ts [rows=100000] [workflows=5000] [drift=1]
 *
 * Two measurements, because 100k live job workflows do not fit a 2-core dev server:
 * 1. Rows: a scratch database with `rows` jobs and a pass of the real `reconcileJobWorkflows` over
 *    them against a workflow listing in which every job is in sync (the Temporal side recorded, not
 *    called). This is the per-job cost of a job that needs nothing: paging and comparing.
 * 2. Workflows: `workflows` real job workflows, started on a task queue no worker polls (so they
 *    only exist; each ends by itself after 15 minutes) with their revision in the memo, `drift` %
 *    of their rows one revision ahead. A real pass lists them (visibility), pages the rows and
 *    repairs exactly the drifted ones (signal-with-start, 16 at a time).
 * Reports time per pass, per 1k jobs, the calls made, and the projection for 100k jobs.
 * PostgreSQL: BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { buildConfig } from '@svc/common';
import { JobsRepository, WorkspacesRepository } from '@svc/persistence';
import { JobWorkflowGateway } from '@svc/orchestration';
import { JOB_WORKFLOW, type JobWorkflowMemo } from '@svc/workflow-contract/definitions';
import { JOB_ID_KEY, WORKSPACE_ID_KEY } from '@svc/workflow-contract/search-attributes';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { reconcileJobWorkflows } from '../apps/worker/src/reconciler/reconciler';
import { createScratchDatabase } from './scratch-database';

const TEMPORAL_ADDRESS = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
const ROWS = bounded(process.argv[2] ?? '100000', 1, 1_000_000);
const WORKFLOWS = bounded(process.argv[3] ?? '5000', 1, 200_000);
const DRIFT_PERCENT = bounded(process.argv[4] ?? '1', 0, 100);
const START_CONCURRENCY = 32;

function bounded(text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`expected an integer from ${min} to ${max}, got ${text}`);
  }
  return n;
}

/** Ids unique to this run: workflows of an earlier run may still exist (they end after 15 min). */
const ID_PREFIX = `job_BENCH${randomBytes(4).toString('hex').toUpperCase()}`;

function jobId(i: number): string {
  return `${ID_PREFIX}${String(i).padStart(10, '0')}`;
}

/** A scratch database with `rows` paused jobs (ids in order) of one workspace. */
async function seed(rows: number) {
  const scratch = await createScratchDatabase('reconcile', { poolSize: 4 });
  const { ds } = scratch;
  await ds.initialize();
  await ds.runMigrations({ transaction: 'all' });
  const workspace = await new WorkspacesRepository(ds).create({ name: 'bench', slug: 'bench', plan: 'free' });
  await ds.query(
    `INSERT INTO jobs (id, workspace_id, name, schedule_expr, schedule_kind, schedule_canonical, schedule_description,
                       schedule_timezone, schedule_anchor, sink_kind, sink_config, retry, timeout_ms, misfire_policy,
                       overlap_policy, state)
     SELECT $3 || lpad(i::text, 10, '0'), $1, 'bench ' || i, '0 0 12 * * ?', 'quartz',
            '0 0 12 * * ?', 'At 12:00 every day (UTC)', 'UTC', now(), 'webhook',
            '{"url":"http://127.0.0.1:9/unused"}', '{"max_attempts":1}', 30000, 'fire_once', 'allow', 'paused'
       FROM generate_series(0, $2 - 1) AS i`,
    [workspace.id, rows, ID_PREFIX],
  );
  await ds.query('VACUUM ANALYZE jobs');
  return {
    ds,
    workspaceId: workspace.id,
    drop: () => scratch.close(),
  };
}

async function forEachBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        await fn(items[next++]);
      }
    }),
  );
}

async function main(): Promise<void> {
  const taskQueue = `bench-reconcile-${randomBytes(3).toString('hex')}`;
  const config = buildConfig(
    {},
    { TEMPORAL_TASK_QUEUE: taskQueue, SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
  );
  const connection = await Connection.connect({ address: TEMPORAL_ADDRESS });
  const client = new Client({ connection });

  // 1. Rows: every job in sync; the Temporal listing is a client whose list() yields them all.
  const rowsDb = await seed(ROWS);
  const calls = { upsert: 0, delete: 0 };
  const countingGateway = {
    upsertJob: async () => void calls.upsert++,
    deleteJob: async () => void calls.delete++,
  } as unknown as JobWorkflowGateway;
  const inSyncListing = {
    workflow: {
      list: async function* () {
        for (let i = 0; i < ROWS; i++) {
          yield { workflowId: jobId(i), memo: { revision: 1 } satisfies JobWorkflowMemo };
        }
      },
    },
  } as unknown as Client;
  const rowsStart = performance.now();
  const rowsReport = await reconcileJobWorkflows({
    jobs: new JobsRepository(rowsDb.ds),
    gateway: countingGateway,
    client: inSyncListing,
    config,
  });
  const rowsMs = performance.now() - rowsStart;
  await rowsDb.drop();

  // 2. Workflows: real job workflows that only exist (no worker), memo = revision 1.
  const wfDb = await seed(WORKFLOWS);
  const ids = Array.from({ length: WORKFLOWS }, (_, i) => jobId(i));
  const startBegin = performance.now();
  await forEachBounded(ids, START_CONCURRENCY, async (id) => {
    await client.workflow.start(JOB_WORKFLOW, {
      workflowId: id,
      taskQueue,
      args: [{}],
      memo: { revision: 1 } satisfies JobWorkflowMemo,
      workflowExecutionTimeout: '15m',
      typedSearchAttributes: new TypedSearchAttributes([
        { key: JOB_ID_KEY, value: id },
        { key: WORKSPACE_ID_KEY, value: wfDb.workspaceId },
      ]),
    });
  });
  const startMs = performance.now() - startBegin;
  const drifted = Math.round((WORKFLOWS * DRIFT_PERCENT) / 100);
  await wfDb.ds.query(`UPDATE jobs SET revision = 2 WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT $1)`, [drifted]);
  // Visibility is eventually consistent: wait until the listing sees every workflow.
  const query = `WorkflowType = '${JOB_WORKFLOW}' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}'`;
  for (let tries = 0; tries < 120; tries++) {
    const { count } = await client.workflow.count(query);
    if (count >= WORKFLOWS) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const gateway = new JobWorkflowGateway(client, taskQueue);
  const passStart = performance.now();
  const wfReport = await reconcileJobWorkflows({ jobs: new JobsRepository(wfDb.ds), gateway, client, config });
  const passMs = performance.now() - passStart;
  // The worker would have applied the snapshots (memo = new revision); with no worker here, the
  // rows are set back to the workflows' revision to measure a pass with nothing to repair.
  await wfDb.ds.query(`UPDATE jobs SET revision = 1`);
  const secondStart = performance.now();
  const secondReport = await reconcileJobWorkflows({ jobs: new JobsRepository(wfDb.ds), gateway, client, config });
  const secondMs = performance.now() - secondStart;
  await wfDb.drop();
  await connection.close();

  const perThousandRows = (rowsMs / ROWS) * 1000;
  // The listing and paging part of a pass with nothing to repair, per 1k workflows.
  const perThousandWorkflows = (secondMs / WORKFLOWS) * 1000;
  const repairMsPerJob = drifted > 0 ? Math.max(0, passMs - secondMs) / drifted : 0;
  const projectedMs = (secondMs / WORKFLOWS) * 100_000 + repairMsPerJob * 100_000 * (DRIFT_PERCENT / 100);
  const lines = [
    `reconciler bench ${new Date().toISOString()} (Temporal ${TEMPORAL_ADDRESS})`,
    '',
    '| measurement | jobs | upserted | stopped | pass ms | ms per 1k jobs |',
    '| --- | --: | --: | --: | --: | --: |',
    `| rows only, all in sync (no Temporal call) | ${ROWS} | ${rowsReport.upserted} | ${rowsReport.stopped} | ${rowsMs.toFixed(0)} | ${perThousandRows.toFixed(1)} |`,
    `| real workflows, ${DRIFT_PERCENT}% drifted | ${WORKFLOWS} | ${wfReport.upserted} | ${wfReport.stopped} | ${passMs.toFixed(0)} | ${((passMs / WORKFLOWS) * 1000).toFixed(1)} |`,
    `| real workflows, second pass (in sync) | ${WORKFLOWS} | ${secondReport.upserted} | ${secondReport.stopped} | ${secondMs.toFixed(0)} | ${perThousandWorkflows.toFixed(1)} |`,
    '',
    `calls to Temporal for in-sync rows: ${calls.upsert} upserts, ${calls.delete} stops (expected 0)`,
    `seeding: ${WORKFLOWS} workflow starts in ${(startMs / 1000).toFixed(1)} s (${((WORKFLOWS / startMs) * 1000).toFixed(0)}/s at ${START_CONCURRENCY} concurrent)`,
    `projection, 100k jobs with ${DRIFT_PERCENT}% drift: ${(projectedMs / 1000).toFixed(1)} s per pass`,
  ];
  console.log(lines.join('\n'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
