/**
 * The plan of `POST /api/v1/jobs/apply` as `svc apply` and `svc diff` print it (docs/jobs-as-code.md):
 * one line per job that changes, like a diff, then what stayed. Pure.
 */

/** The fields of the API's apply plan (`ApplyPlan` of libs/api-client) this output reads. */
export interface PlanLines {
  created: string[];
  updated: Array<{ key: string; changes: string[] }>;
  unchanged: string[];
  deleted: string[];
  kept?: Array<{ key: string; reason: string }>;
}

/** Whether carrying the plan out writes anything: what makes `svc diff` exit 2. */
export function planHasChanges(plan: PlanLines): boolean {
  return plan.created.length + plan.updated.length + plan.deleted.length > 0;
}

/**
 * `+ key` created, `~ key: a.b, c` updated with the changed field paths, `- key` deleted, then
 * `= N unchanged`, `! key kept: reason` for what an operator set by hand and apply leaves alone,
 * and a summary line saying whether it was carried out (`dryRun`: nothing was written).
 */
export function formatPlan(plan: PlanLines, options: { dryRun: boolean; managedBy?: string }): string {
  const lines: string[] = [];
  for (const key of plan.created) {
    lines.push(`+ ${key}`);
  }
  for (const { key, changes } of plan.updated) {
    lines.push(`~ ${key}: ${changes.join(', ')}`);
  }
  for (const key of plan.deleted) {
    lines.push(`- ${key}`);
  }
  if (plan.unchanged.length > 0) {
    lines.push(`= ${plan.unchanged.length} unchanged`);
  }
  for (const { key, reason } of plan.kept ?? []) {
    lines.push(`! ${key} kept: ${reason}`);
  }
  const counts = [
    `${plan.created.length} ${options.dryRun ? 'to create' : 'created'}`,
    `${plan.updated.length} ${options.dryRun ? 'to update' : 'updated'}`,
    `${plan.deleted.length} ${options.dryRun ? 'to delete' : 'deleted'}`,
    `${plan.unchanged.length} unchanged`,
  ].join(', ');
  const owner = options.managedBy ? ` (managed by ${options.managedBy})` : '';
  lines.push(options.dryRun ? `dry run${owner}: ${counts}; nothing written` : `applied${owner}: ${counts}`);
  return `${lines.join('\n')}\n`;
}
