import { LimitExceededError, ValidationFailedError } from '@svc/common';

/**
 * Every stage of a job's validation reports here (every error at once): the body's own
 * checks (the pipe's `pendingFieldErrors`), the schedule, the sink, the retry policy, templates.
 * A stage that needs a field an earlier stage refused skips (`refused`); the others still run, and
 * `throwIfAny` answers one `400` with all their `fields` (and every schedule error in `errors`).
 */
export class FieldErrors {
  private readonly fields: Record<string, string>;
  private readonly errors: unknown[] = [];
  private readonly messages = new Set<string>();
  private limit: LimitExceededError | undefined;

  constructor(initial: Record<string, string> = {}) {
    this.fields = { ...initial };
    if (Object.keys(initial).length > 0) {
      this.messages.add('Request validation failed');
    }
  }

  /** True when `field`, or a field inside it, was refused: a stage reading it must skip. */
  refused(field: string): boolean {
    return Object.keys(this.fields).some(
      (path) => path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`),
    );
  }

  add(field: string, message: string): void {
    this.fields[field] ??= message;
    this.messages.add('Request validation failed');
  }

  /** Runs one stage; its `400` is kept (and it answers undefined), any other error is thrown. */
  async run<T>(stage: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await stage();
    } catch (err) {
      if (err instanceof ValidationFailedError) {
        for (const [path, message] of Object.entries(err.body.fields ?? {})) {
          this.fields[path] ??= message;
        }
        this.errors.push(...(err.body.errors ?? []));
        this.messages.add(err.body.message);
        return undefined;
      }
      if (err instanceof LimitExceededError) {
        this.limit ??= err;
        return undefined;
      }
      throw err;
    }
  }

  get empty(): boolean {
    return Object.keys(this.fields).length === 0 && this.limit === undefined;
  }

  /**
   * One `400` with every field; a plan limit (`403`, below the minimum interval) only when nothing
   * else was wrong. The message is the stage's own when a single stage failed ("Invalid schedule").
   */
  throwIfAny(): void {
    if (Object.keys(this.fields).length > 0) {
      const message = this.messages.size === 1 ? [...this.messages][0] : 'Request validation failed';
      throw new ValidationFailedError(this.fields, message, this.errors.length > 0 ? this.errors : undefined);
    }
    if (this.limit) {
      throw this.limit;
    }
  }
}
