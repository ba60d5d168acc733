import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** What went wrong, in one line: an activity's own failure message rather than its wrapper's. */
export function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return cause.message;
  }
  return cause instanceof Error ? cause.message : String(cause);
}
