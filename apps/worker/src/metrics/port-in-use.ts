/**
 * The worker's two metrics listeners fail on a taken port with a bare `EADDRINUSE` (Node) or
 * "Address already in use" (the SDK's Rust core): both become one sentence naming the port and the
 * settings that move it, which a second copy of the service on one machine needs (README → ports).
 */
export function portInUseError(
  err: unknown,
  listener: { what: string; host: string; port: number; env: string; key: string },
): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code !== 'EADDRINUSE' && !/address already in use/i.test(message)) {
    return err;
  }
  const { what, host, port, env, key } = listener;
  return new Error(
    `${what} cannot listen on ${host}:${port}: the port is already in use. Stop what listens there, ` +
      `or move it with ${env}=<another port> (${key} in SVC_CONFIG; 0 turns it off)`,
  );
}
