/**
 * Billable Temporal actions as the server counts them: the `action` counter of a Temporal
 * server's Prometheus endpoint (server 1.17 and later; the dev server with `--metrics-port`), per
 * `action_type`, for one namespace. Temporal Cloud bills from the same accounting, so a delta of
 * this counter over a side's phase, divided by what that side delivered, is its cost per
 * occurrence (docs/capacity.md). Only deltas mean anything: the counter also holds earlier work.
 */

export type ActionCounts = Record<string, number>;

/** One sample of the counter, summed over the labels other than `action_type`. */
export async function readActions(metricsUrl: string, namespace: string): Promise<ActionCounts> {
  const response = await fetch(metricsUrl);
  if (!response.ok) {
    throw new Error(`${metricsUrl} answered HTTP ${response.status}`);
  }
  return parseActions(await response.text(), namespace);
}

/** `action{action_type="…",namespace="…",…} 12` lines of a Prometheus text exposition. */
export function parseActions(text: string, namespace: string): ActionCounts {
  const counts: ActionCounts = {};
  for (const line of text.split('\n')) {
    const match = /^action\{([^}]*)\}\s+([0-9.e+]+)/.exec(line);
    if (!match) {
      continue;
    }
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.namespace !== namespace) {
      continue;
    }
    const type = labels.action_type ?? 'unknown';
    counts[type] = (counts[type] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** `to − from` per action type, types that did not move left out. */
export function actionsBetween(from: ActionCounts, to: ActionCounts): ActionCounts {
  const delta: ActionCounts = {};
  for (const [type, value] of Object.entries(to)) {
    const moved = value - (from[type] ?? 0);
    if (moved > 0) {
      delta[type] = moved;
    }
  }
  return delta;
}

export function totalActions(counts: ActionCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** One side's cost: creating its N things once, and each delivered occurrence after that. */
export interface SideActions {
  side: string;
  /** Actions from the first create to the window's opening, per job or Schedule. */
  perCreatedJob: number;
  created: ActionCounts;
  /** Actions from the window's opening to the drain's end, and what arrived in that time. */
  steady: ActionCounts;
  delivered: number;
  perOccurrence: number | null;
}

export function sideActions(
  side: string,
  jobs: number,
  samples: { beforeCreate: ActionCounts; windowStart: ActionCounts; drained: ActionCounts },
  delivered: number,
): SideActions {
  const created = actionsBetween(samples.beforeCreate, samples.windowStart);
  const steady = actionsBetween(samples.windowStart, samples.drained);
  return {
    side,
    perCreatedJob: totalActions(created) / jobs,
    created,
    steady,
    delivered,
    perOccurrence: delivered > 0 ? totalActions(steady) / delivered : null,
  };
}
