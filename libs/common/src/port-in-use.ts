/**
 * A listener of ours (the API, the worker's metrics, the Temporal SDK's metrics) fails on a taken
 * port with a bare `EADDRINUSE` (Node) or "Address already in use" (the SDK's Rust core): it becomes
 * one sentence naming the port and the settings that move it, which a second copy of the service
 * on one machine needs (README → ports). Any other error is returned as it is.
 */
export function portInUseError(
  err: unknown,
  listener: { what: string; host: string; port: number; env: string; key: string; off?: boolean },
): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code !== 'EADDRINUSE' && !/address already in use/i.test(message)) {
    return err;
  }
  const { what, host, port, env, key, off = true } = listener;
  return new Error(
    `${what} cannot listen on ${host}:${port}: the port is already in use. Stop what listens there, ` +
      `or move it with ${env}=<another port> (${key} in SVC_CONFIG${off ? '; 0 turns it off' : ''})`,
  );
}
