import type { AppConfig } from '@svc/common';
import { type CommandSinkConfig, runCommand, validateCommandConfig } from '../command-sink';
import {
  type SinkAttemptResult,
  type SinkFieldErrors,
  type SinkKind,
  type SinkSendContext,
  unsentResult,
} from './sink-kind';

const DISABLED = 'the command sink is disabled on this server';

/** A program run without a shell (docs/delivery.md → command sink); off unless `sinks.command.enabled`. */
export class CommandSinkKind implements SinkKind<CommandSinkConfig> {
  readonly kind = 'command';
  readonly label = 'Command';
  readonly description =
    'Runs a program without a shell (only where the server enables `sinks.command.enabled`); exit 0 succeeds.';
  readonly configSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['argv'],
    properties: {
      argv: {
        type: 'array',
        minItems: 1,
        maxItems: 64,
        items: { type: 'string' },
        description: 'Program and arguments',
      },
      env: { anyOf: [{ type: 'object', additionalProperties: { type: 'string' } }, { type: 'null' }] },
      cwd: { anyOf: [{ type: 'string', pattern: '^/' }, { type: 'null' }], description: 'Absolute path' },
      retry_on_exit_codes: {
        anyOf: [{ type: 'array', items: { type: 'integer', minimum: 1, maximum: 255 } }, { type: 'null' }],
        description: 'Exit codes that mean "try again"; default none',
      },
    },
  };
  readonly formFields = [
    { name: 'argv', label: 'Program and arguments', type: 'lines', required: true, help: 'One per line' },
    { name: 'env', label: 'Environment', type: 'map', help: 'One `NAME=value` per line' },
    { name: 'cwd', label: 'Working directory', type: 'text' },
  ] as const;

  disabledReason(config: AppConfig): string | null {
    return config.sinks.command.enabled ? null : DISABLED;
  }

  async normalize(config: CommandSinkConfig): Promise<{ config: CommandSinkConfig } | { fields: SinkFieldErrors }> {
    const fields = validateCommandConfig(config);
    if (Object.keys(fields).length > 0) {
      return { fields };
    }
    return {
      config: {
        argv: config.argv,
        ...(config.env ? { env: config.env } : {}),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        retry_on_exit_codes: config.retry_on_exit_codes ?? [],
      },
    };
  }

  templateFields(): Record<string, string> {
    return {};
  }

  secretNames(): string[] {
    return [];
  }

  describe(config: CommandSinkConfig): string {
    const argv = Array.isArray(config.argv) ? config.argv : [];
    const program = typeof argv[0] === 'string' ? (argv[0].split('/').pop() ?? '') : '';
    return `command ${program || '?'}`;
  }

  summarize(config: CommandSinkConfig): string {
    return `exec ${config.argv[0] ?? ''} (+${Math.max(0, config.argv.length - 1)} args)`;
  }

  async send(config: CommandSinkConfig, ctx: SinkSendContext): Promise<SinkAttemptResult> {
    if (this.disabledReason(ctx.services.config)) {
      return unsentResult(this.summarize(config), DISABLED);
    }
    const result = await runCommand({ config, timeoutMs: ctx.timeoutMs });
    return {
      outcome: result.outcome,
      statusCode: null,
      durationMs: result.durationMs,
      error: result.outcome === 'success' ? null : (result.error ?? `exit code ${result.exitCode}`),
      requestSummary: result.requestSummary,
      body: result.output,
      retryAfterMs: null,
    };
  }
}
