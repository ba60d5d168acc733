/** An expected failure (bad input, unknown slug): printed as one line, exit code 1, no stack. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
