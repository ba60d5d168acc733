import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Starts test/utils/oidc-provider.mjs (npm oidc-provider, ESM-only, hence a child process) on
 * 127.0.0.1:`port` with one client, and resolves once it listens. Kill it with SIGTERM.
 */
export async function startOidcProvider(
  port: number,
  clientId: string,
  clientSecret: string,
  redirectUri: string,
): Promise<ChildProcess> {
  const provider = spawn(
    process.execPath,
    [resolve(__dirname, 'oidc-provider.mjs'), String(port), clientId, clientSecret, redirectUri],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((ready, fail) => {
    let output = '';
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) {
        ready();
      }
    };
    provider.stdout!.on('data', onOutput);
    provider.stderr!.on('data', onOutput);
    provider.once('exit', (code) => fail(new Error(`oidc-provider exited with ${code}: ${output}`)));
  });
  return provider;
}
