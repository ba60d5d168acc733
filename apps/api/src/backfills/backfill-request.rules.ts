import type { BackfillOccurrences } from '@svc/orchestration';

/** What is wrong with a backfill's range before its occurrences are counted, as the 400's `fields`. */
export function backfillRangeProblems(from: Date, to: Date): Record<string, string> {
  return from.getTime() < to.getTime() ? {} : { to: 'must be after `from` (the range is [from, to))' };
}

/** The 400's `fields` for a range whose occurrences cannot be listed (over the cap, or too costly to compute). */
export function backfillOccurrenceProblems(
  found: Exclude<BackfillOccurrences, { ok: true }>,
  cap: number,
): Record<string, string> {
  if (found.reason === 'over_cap') {
    const beyond = found.firstBeyond.toISOString();
    return {
      to:
        `the range holds more than ${cap} occurrences (limits.backfill_max_occurrences); the occurrences from ` +
        `${beyond} on are past the cap: end the range at ${beyond} or split it`,
    };
  }
  return { to: 'the job’s schedule takes too long to compute over this range: narrow it' };
}
