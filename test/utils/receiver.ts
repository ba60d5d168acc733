import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  at: number;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Responder = (request: ReceivedRequest) => {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer this much later (a slow receiver). */
  delayMs?: number;
  /** Answer once this settles (a receiver the test holds). */
  until?: Promise<unknown>;
};

/** A real HTTP webhook receiver on 127.0.0.1 that records every request with its raw body. */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private responder: Responder = () => ({ status: 200, body: 'ok' });
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request: ReceivedRequest = {
          at: Date.now(),
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        holder.receiver!.requests.push(request);
        const answer = holder.receiver!.responder(request);
        const send = () => {
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body ?? '');
        };
        if (answer.until) {
          void answer.until.finally(send);
        } else if (answer.delayMs) {
          setTimeout(send, answer.delayMs);
        } else {
          send();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}`);
    return holder.receiver;
  }

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  forJob(jobId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['svc-job-id'] === jobId);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The occurrence a delivery belongs to (its `svc-scheduled-at` header), epoch ms. */
export function scheduledAtOf(request: ReceivedRequest): number {
  return Date.parse(request.headers['svc-scheduled-at'] as string);
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes (bounded wait, no timed assertion). */
export async function waitFor<T>(
  probe: () => Promise<T> | T,
  timeoutMs = 20_000,
  everyMs = 200,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!last) {
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await sleep(everyMs);
    last = await probe();
  }
  return last as NonNullable<T>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
