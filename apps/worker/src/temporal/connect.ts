import type { OnApplicationShutdown } from '@nestjs/common';
import { type ResolvedTemporal, temporalConnectOptions, temporalFailureContext } from '@svc/common';
import { classifyTemporalConnectionError } from '@svc/common/temporal-connection-error';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';

/** A connection failure that waiting will not cure; its message is the one clear line. */
export class TemporalConnectionError extends Error {
  override readonly name = 'TemporalConnectionError';
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/**
 * The worker's start-up connection (docs/operations.md → Connecting to Temporal): connects with
 * the resolved settings and asks for the namespace, so a wrong namespace fails here and not on
 * the first poll. A failure that waiting cannot cure (untrusted server, rejected certificate or
 * API key, unknown namespace) throws `TemporalConnectionError` with one line naming the cause, and
 * the process exits with it; an unreachable frontend is retried (1 s doubling to 30 s, one `warn`
 * line each), so a worker started before Temporal comes up by itself.
 */
export async function connectWorkerToTemporal(
  temporal: ResolvedTemporal,
  deps: { warn(message: string): void; sleep?: (ms: number) => Promise<void>; now?: () => Date },
): Promise<NativeConnection> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const options = temporalConnectOptions(temporal);
  let delay = FIRST_RETRY_MS;
  for (;;) {
    let connection: NativeConnection | undefined;
    try {
      connection = await NativeConnection.connect(options);
      await connection.workflowService.describeNamespace({ namespace: temporal.namespace });
      return connection;
    } catch (err) {
      await connection?.close().catch(() => undefined);
      const failure = classifyTemporalConnectionError(
        err,
        temporalFailureContext(temporal, (deps.now ?? (() => new Date()))()),
      );
      if (!failure.transient) {
        throw new TemporalConnectionError(failure.message);
      }
      deps.warn(`${failure.message}; retrying in ${delay / 1000} s`);
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}

/**
 * The worker's second connection (`@temporalio/client`, for the reconciler's client), made once
 * the native one answered; a failure still ends in the one line.
 */
export async function connectWorkerClient(temporal: ResolvedTemporal, now: () => Date = () => new Date()) {
  try {
    return await Connection.connect(temporalConnectOptions(temporal));
  } catch (err) {
    throw new TemporalConnectionError(
      classifyTemporalConnectionError(err, temporalFailureContext(temporal, now())).message,
    );
  }
}

/**
 * The worker's connections to Temporal: the native one the runs' and alerts' workers poll on (and
 * runs and alerts are started from, so that they start eagerly), a native one of the jobs' and
 * parked jobs' workers, and the client one of the reconciler, the stalled-run sweep and the sinks.
 * Two native connections, because a proxy in front of Temporal allows each only so many streams
 * and every long poll holds one (`worker.max_streams_per_connection`, `pollOptions`). Opened at
 * start-up, closed once the workers have drained.
 */
export class TemporalConnections implements OnApplicationShutdown {
  constructor(
    readonly worker: NativeConnection,
    readonly client: Connection,
    readonly jobs: NativeConnection = worker,
  ) {}

  static async open(temporal: ResolvedTemporal, warn: (message: string) => void): Promise<TemporalConnections> {
    const worker = await connectWorkerToTemporal(temporal, { warn });
    const client = await connectWorkerClient(temporal);
    return new TemporalConnections(worker, client, await connectWorkerToTemporal(temporal, { warn }));
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.jobs !== this.worker) {
      await this.jobs.close().catch(() => undefined);
    }
    await this.worker.close().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
