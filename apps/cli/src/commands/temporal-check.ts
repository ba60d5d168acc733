import {
  describeTemporalConnection,
  type ResolvedTemporal,
  temporalConnectOptions,
  temporalFailureContext,
} from '@svc/common';
import { classifyTemporalConnectionError } from '@svc/common/temporal-connection-error';
import { Connection } from '@temporalio/client';
import { CliError } from '../errors';

const CHECK_TIMEOUT_MS = 10_000;

/**
 * `svc temporal check`: connects as the API and the worker would (same settings, same options
 * builder) and asks for the namespace. Resolves to one line saying what answered; rejects with a
 * `CliError` whose message is the one line naming the cause (never key material).
 */
export async function checkTemporal(temporal: ResolvedTemporal, now: () => Date = () => new Date()): Promise<string> {
  // Lazy and without the retry interceptor: the call's own error carries the TLS or gRPC cause.
  const connection = Connection.lazy({ ...temporalConnectOptions(temporal), interceptors: [] });
  try {
    const response = await connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
      connection.workflowService.describeNamespace({ namespace: temporal.namespace }),
    );
    const name = response.namespaceInfo?.name ?? temporal.namespace;
    return `Temporal at ${describeTemporalConnection(temporal)}: connected, namespace ${name} answers`;
  } catch (err) {
    throw new CliError(classifyTemporalConnectionError(err, temporalFailureContext(temporal, now())).message);
  } finally {
    await connection.close().catch(() => undefined);
  }
}
