/**
 * The usage month of an instant (spec → Usage): the UTC calendar month `YYYY-MM` that
 * `usage_counters` counts runs under (by `scheduled_at`), and `reset_at`, the first instant of the
 * next UTC month.
 */
export function usageMonth(now: Date): { month: string; resetAt: Date } {
  return {
    month: now.toISOString().slice(0, 7),
    resetAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}
