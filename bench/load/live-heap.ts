/**
 * The worker's live heap, garbage collected first, per thread (issue 25): what idle jobs really
 * keep, apart from the garbage RSS carries until the next GC. Bench only, Linux only.
 *
 * It opens the Node inspector of the running worker process (SIGUSR1 starts it on
 * 127.0.0.1:9229, as `node --inspect` would; it stays open until the process exits), attaches to
 * its worker threads (the Temporal SDK runs workflows in threads of their own), and in each one
 * forces a full GC (`HeapProfiler.collectGarbage`) and reads the heap in use after it
 * (`Runtime.getHeapUsage`). Nothing is written to disk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ThreadHeap {
  /** `main`, or the worker thread's script (the SDK's workflow threads run workflow-worker-thread.js). */
  thread: string;
  usedBytes: number;
}

export interface LiveHeap {
  threads: ThreadHeap[];
  /** The threads that run workflows (the SDK's workflow worker threads). */
  workflowThreadsBytes: number;
  mainBytes: number;
}

/** The pid of the service worker (`dist/apps/worker/…`) on this machine, or null. */
export function findWorkerPid(): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (
        /^node\S*\s.*dist\/apps\/worker\/src\/main\.js/.test(cmdline) ||
        /\/node .*dist\/apps\/worker\//.test(cmdline)
      ) {
        return Number(name);
      }
    } catch {
      // ended meanwhile
    }
  }
  return null;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

const INSPECTOR = 'http://127.0.0.1:9229';

/** Collects garbage in every thread of the process `pid` and returns each one's heap in use. */
export async function liveHeap(pid: number): Promise<LiveHeap> {
  process.kill(pid, 'SIGUSR1');
  let target: { webSocketDebuggerUrl: string } | undefined;
  for (let i = 0; i < 50 && !target; i++) {
    try {
      target = ((await (await fetch(`${INSPECTOR}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>)[0];
    } catch {
      await sleep(100);
    }
  }
  if (!target) {
    throw new Error(`the inspector of process ${pid} did not open on ${INSPECTOR}`);
  }
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`cannot connect to ${target!.webSocketDebuggerUrl}`));
  });
  let nextId = 0;
  const waiting = new Map<number, (m: Message) => void>();
  const workers: Array<{ sessionId: string; url: string }> = [];
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as Message;
    if (message.method === 'NodeWorker.attachedToWorker') {
      const params = message.params as { sessionId: string; workerInfo: { url: string } };
      workers.push({ sessionId: params.sessionId, url: params.workerInfo.url });
    } else if (message.method === 'NodeWorker.receivedMessageFromWorker') {
      const inner = JSON.parse(String(message.params!.message)) as Message;
      if (inner.id !== undefined) {
        waiting.get(inner.id)?.(inner);
      }
    } else if (message.id !== undefined) {
      waiting.get(message.id)?.(message);
    }
  };
  const reply = (id: number) =>
    new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`inspector call ${id} timed out`)), 120_000);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        waiting.delete(id);
        return m.error ? reject(new Error(m.error.message)) : resolve(m);
      });
    });
  const call = (method: string, params: object = {}) => {
    const id = ++nextId;
    ws.send(JSON.stringify({ id, method, params }));
    return reply(id);
  };
  const callIn = async (sessionId: string, method: string, params: object = {}) => {
    const id = ++nextId;
    const answer = reply(id);
    await call('NodeWorker.sendMessageToWorker', {
      sessionId,
      message: JSON.stringify({ id, method, params }),
    });
    return answer;
  };
  try {
    await call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await sleep(500); // the attachedToWorker events of the threads already running
    const threads: ThreadHeap[] = [];
    await call('HeapProfiler.collectGarbage');
    const main = await call('Runtime.getHeapUsage');
    threads.push({ thread: 'main', usedBytes: Number(main.result!.usedSize) });
    for (const worker of workers) {
      await callIn(worker.sessionId, 'HeapProfiler.collectGarbage');
      const usage = await callIn(worker.sessionId, 'Runtime.getHeapUsage');
      threads.push({ thread: worker.url.split('/').pop() ?? worker.url, usedBytes: Number(usage.result!.usedSize) });
    }
    await call('NodeWorker.disable').catch(() => undefined);
    return {
      threads,
      workflowThreadsBytes: threads
        .filter((t) => t.thread.includes('workflow-worker-thread'))
        .reduce((sum, t) => sum + t.usedBytes, 0),
      mainBytes: threads[0]!.usedBytes,
    };
  } finally {
    ws.close();
  }
}
