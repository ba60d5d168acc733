import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * Installs the Temporal SDK runtime logging errors only, for suites whose workers are expected to
 * log warnings (tasks of terminated or cancelled workflows). The runtime is per process: a suite
 * that runs after another one installed it keeps that one.
 */
export function installQuietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // already installed in this process
  }
}
