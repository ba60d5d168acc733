/** An expected failure (bad input, unknown slug): printed as one line, exit code 1, no stack. */
export class CliError extends Error {
  override readonly name = 'CliError';

  /** Lines printed under the message, one each (an API error's `fields`: `jobs[3].schedule.expr: …`). */
  readonly details: string[];

  constructor(message: string, details: string[] = []) {
    super(message);
    this.details = details;
  }
}
