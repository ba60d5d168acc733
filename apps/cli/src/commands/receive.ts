import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { CliError } from '../errors';

/**
 * `svc receive`: a webhook receiver on this machine that prints every request it gets and whether
 * its Standard Webhooks signature verifies against the job's signing secret(s), so a first
 * delivery can be watched (docs/getting-started.md). It answers every request with one status.
 */
export interface ReceiveOptions {
  host: string;
  port: number;
  /** Signing secrets (`whsec_…`); a request verifies when any of them matches (rotation). */
  secrets: string[];
  /** The status code every request is answered with (e.g. 500 to watch retries). */
  status: number;
  out: (text: string) => void;
  /** The time printed on each request's line. */
  now?: () => Date;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

/** What is printed of a body: enough to recognise it, never a wall of text. */
const MAX_BODY_CHARS = 2_000;

export async function startReceiver(options: ReceiveOptions): Promise<Receiver> {
  const verifiers = options.secrets.map(verifierOf);
  const now = options.now ?? (() => new Date());
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      options.out(
        describeRequest(
          { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body },
          verifiers,
          now(),
        ),
      );
      response.writeHead(options.status, { 'content-type': 'text/plain' }).end(`svc receive: ${options.status}\n`);
    });
  });
  await new Promise<void>((listening, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        err.code === 'EADDRINUSE'
          ? new CliError(`port ${options.port} on ${options.host} is already in use: pick another with --port`)
          : err,
      ),
    );
    server.listen(options.port, options.host, () => listening());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

interface Verifier {
  verify(body: string, headers: Record<string, string>): void;
}

function verifierOf(secret: string): Verifier {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) {
    throw new CliError('--secret must be a job signing secret: whsec_ followed by base64 (the job create response)');
  }
  const webhook = new Webhook(secret);
  // Bodies need not be JSON (a job's `body` template is free text): verify the bytes, parse nothing.
  return { verify: (body, headers) => void webhook.verify(body, headers, { jsonParse: false }) };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * The lines printed for one request: what arrived (method, path, the run's `webhook-id`, the
 * 0-based `Svc-Attempt` and the job), whether the signature verifies, and the body. A sink test
 * starts with `SINK TEST` and shows its id as a test id, not a run's.
 */
export function describeRequest(request: ReceivedRequest, verifiers: Verifier[], at: Date): string {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  // A sink test (`Svc-Test: true`, docs/delivery.md) records nothing: its `webhook-id` is a fresh
  // `run_…` id that names no run (GET /runs/{id} answers 404), so it is not printed as a run's.
  const test = header('svc-test') === 'true';
  const facts = [
    ...(test ? ['SINK TEST'] : []),
    `${request.method} ${request.path}`,
    test
      ? `test id ${header('webhook-id') ?? '(none)'} (not a run: a sink test records nothing)`
      : `webhook-id ${header('webhook-id') ?? '(none)'}`,
    `Svc-Attempt ${header('svc-attempt') ?? '(none)'}`,
  ];
  const job = header('svc-job-id');
  if (job) {
    facts.push(`job ${job}`);
  }
  const scheduled = header('svc-scheduled-at');
  if (scheduled) {
    facts.push(`scheduled ${scheduled}`);
  }
  const body =
    request.body.length > MAX_BODY_CHARS
      ? `${request.body.slice(0, MAX_BODY_CHARS)}… (${Buffer.byteLength(request.body)} bytes)`
      : request.body || '(empty)';
  return [
    `[${at.toISOString()}] ${facts.join('  ')}`,
    `  signature: ${signatureVerdict(request, verifiers)}`,
    `  body: ${body}`,
    '',
  ].join('\n');
}

function signatureVerdict(request: ReceivedRequest, verifiers: Verifier[]): string {
  if (verifiers.length === 0) {
    return 'not checked (start svc receive with --secret whsec_… to verify it)';
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') {
      headers[name] = value;
    }
  }
  let reason = '';
  for (const verifier of verifiers) {
    try {
      verifier.verify(request.body, headers);
      return 'verified';
    } catch (err) {
      reason = (err as Error).message;
    }
  }
  // The library's reasons: "Missing required headers", "No matching signature found",
  // "Message timestamp too old" / "too new" (more than five minutes from now).
  return `NOT VERIFIED: ${reason}`;
}
