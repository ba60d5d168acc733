/**
 * What jsonb columns hold. Any non-undefined value (JSON has no undefined). Typed as
 * `NonNullable<unknown>` rather than `unknown` because TypeORM's insert/update types
 * (`QueryDeepPartialEntity`) reject `unknown` members, and a recursive JSON type is too deep for them.
 */
export type JsonValue = NonNullable<unknown> | null;
export type JsonObject = Record<string, JsonValue>;

/** `{namespace, workflow_id, run_id}` of a workflow a sink started (runs and attempts). */
export interface StartedWorkflowColumn {
  namespace: string;
  workflow_id: string;
  run_id: string;
}
