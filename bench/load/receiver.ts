/**
 * The loopback webhook receiver both sides deliver to: `/svc/<i>` from the service's jobs,
 * `/native/<i>` from the native Temporal Schedules. It records each request and answers 200 at
 * once, so the receiver never adds to the lag it measures.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Source = 'svc' | 'native';

export interface Arrival {
  source: Source;
  /** Job (or schedule) index from the path. */
  index: number;
  /** `Date.now()` when the request's headers arrived. */
  arrivedAtMs: number;
  /** `Svc-Scheduled-At` as epoch ms; `null` when missing or unreadable. */
  scheduledAtMs: number | null;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** A copy of what has arrived so far. */
  arrivals(): Arrival[];
  close(): Promise<void>;
}

const PATH = /^\/(svc|native)\/(\d+)$/;

function parseScheduledAt(header: string | string[] | undefined): number | null {
  const ms = typeof header === 'string' ? Date.parse(header) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const arrivedAtMs = Date.now();
    const match = PATH.exec(req.url ?? '');
    if (match) {
      arrivals.push({
        source: match[1] as Source,
        index: Number(match[2]),
        arrivedAtMs,
        scheduledAtMs: parseScheduledAt(req.headers['svc-scheduled-at']),
      });
    }
    // Drain the body before answering so keep-alive connections stay reusable.
    req.resume();
    req.on('end', () => {
      res.writeHead(match ? 200 : 404, { 'content-type': 'text/plain' }).end(match ? 'ok' : 'no');
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    arrivals: () => [...arrivals],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
