/** An error class a Temporal call may answer with (`WorkflowNotFoundError`, …). */
type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Runs a Temporal call whose answer `tolerated` means the state the caller wants already holds:
 * a start that finds the workflow started (`WorkflowExecutionAlreadyStartedError`), a signal or
 * cancel that finds it gone (`WorkflowNotFoundError`). Any other error is the caller's.
 */
export async function tolerating(tolerated: ErrorClass, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!(err instanceof tolerated)) {
      throw err;
    }
  }
}
