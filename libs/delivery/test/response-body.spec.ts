import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_RESPONSE_BYTES, deliverHttp } from '@svc/delivery';

/**
 * Spec: Limits → Stored response body (at most 64 KiB read). The client reads 64 KiB and then
 * stops: it aborts the stream instead of draining it, so an endless or huge response costs 64 KiB
 * and returns at once, not at the attempt timeout.
 */
describe('response bodies: at most 64 KiB read, then the stream is aborted', () => {
  let server: Server;
  let origin: string;
  /** Resolves when the server sees the response's connection closed by the client. */
  let closed: Promise<{ written: number; finished: boolean }>;

  /** An endless response: 16 KiB chunks for as long as the client keeps reading. */
  function endless(res: ServerResponse): Promise<{ written: number; finished: boolean }> {
    const chunk = Buffer.alloc(16 * 1024, 'z');
    let written = 0;
    res.writeHead(500, { 'content-type': 'text/plain' });
    return new Promise((resolve) => {
      res.on('close', () => resolve({ written, finished: res.writableFinished }));
      const pump = () => {
        while (!res.destroyed && written < 1024 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  }

  beforeEach(async () => {
    let onClosed!: (v: { written: number; finished: boolean }) => void;
    closed = new Promise((resolve) => (onClosed = resolve));
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => void endless(res).then(onClosed));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('should return the first 64 KiB of an endless response, marked truncated, without waiting for the timeout', async () => {
    const result = await deliverHttp({
      url: `${origin}/endless`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      // Far longer than the test may run: returning at all proves reading stopped by itself.
      timeoutMs: 10 * 60_000,
      rules: { mode: 'self_hosted', allowPrivateNetworks: true },
    });
    expect(result).toMatchObject({ statusCode: 500, bodyTruncated: true });
    expect(result.errorKind).toBeUndefined();
    expect(Buffer.byteLength(result.body!)).toBe(MAX_RESPONSE_BYTES);
    expect(result.body).toBe('z'.repeat(MAX_RESPONSE_BYTES));

    // The client closed the connection mid-response: the server never finished writing.
    const seen = await closed;
    expect(seen.finished).toBe(false);
    expect(seen.written).toBeLessThan(1024 * 1024 * 1024);
  });

  it('should honour a smaller cap the same way', async () => {
    const result = await deliverHttp({
      url: `${origin}/endless`,
      method: 'GET',
      headers: {},
      timeoutMs: 10 * 60_000,
      rules: { mode: 'self_hosted', allowPrivateNetworks: true },
      maxResponseBytes: 1000,
    });
    expect(result.body).toHaveLength(1000);
    expect(result.bodyTruncated).toBe(true);
    expect((await closed).finished).toBe(false);
  });
});
