/**
 * Nest's `LoggerService` over the process's pino logger (docs/operations.md → Logs), so Nest's
 * own lines (start-up, route mapping, uncaught exceptions) and every `new Logger(context)` of the
 * API and the worker are JSON lines with the request's or activity's context fields. Shared by
 * both apps, hence here; it implements Nest's interface by shape and imports nothing of Nest
 * (this lib stays framework-free), and the apps' `NestFactory` calls check the shape.
 */
import { type Logger, NEST_TO_PINO_LEVEL, pinoLevelOfNestLevels } from './logging';

type NestLevel = keyof typeof NEST_TO_PINO_LEVEL;

export class PinoNestLogger {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Nest's level list (`['error', 'warn']`) as the pino threshold that writes them all. */
  setLogLevels(levels: string[]): void {
    this.logger.level = pinoLevelOfNestLevels(levels);
  }

  /**
   * Nest's calling convention: `(message, ...params, context)`, where a `Logger` created with a
   * context appends it, and `error` takes a stack first (`(message, stack?, context?)`). The
   * message may be a string, an Error, or an object of fields (`{ err, request_id }`).
   */
  private write(level: NestLevel, message: unknown, params: unknown[]): void {
    const pinoLevel = NEST_TO_PINO_LEVEL[level];
    if (!this.logger.isLevelEnabled(pinoLevel)) {
      return;
    }
    const rest = params.filter((param) => param !== undefined);
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = level === 'error' && typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    let msg: string | undefined;
    if (message instanceof Error) {
      fields.err = message;
      msg = message.message;
    } else if (message !== null && typeof message === 'object') {
      Object.assign(fields, message);
      const err = (message as { err?: unknown }).err;
      msg = err instanceof Error ? err.message : undefined;
    } else {
      msg = String(message);
    }
    if (stack && !(fields.err instanceof Error)) {
      fields.stack = stack;
    }
    if (rest.length > 0) {
      fields.params = rest;
    }
    this.logger[pinoLevel](fields, msg ?? stack ?? '');
  }
}
