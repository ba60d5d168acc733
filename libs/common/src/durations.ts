/**
 * Duration strings (decisions.md): number+unit parts with units `d`, `h`, `m`, `s`, `ms`, in
 * descending order, e.g. `1h30m`, `500ms`. Responses always use the normalized form.
 */
const UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
];
const PART = /(\d+)(ms|d|h|m|s)/y;

/** Parses a duration string into milliseconds; null when it is not a valid duration. */
export function parseDuration(text: string): number | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64) {
    return null;
  }
  let total = 0;
  let lastRank = -1;
  PART.lastIndex = 0;
  let index = 0;
  while (index < text.length) {
    PART.lastIndex = index;
    const match = PART.exec(text);
    if (!match) {
      return null;
    }
    const rank = UNITS.findIndex(([unit]) => unit === match[2]);
    if (rank <= lastRank) {
      return null;
    }
    lastRank = rank;
    total += Number(match[1]) * UNITS[rank][1];
    index = PART.lastIndex;
  }
  return Number.isSafeInteger(total) ? total : null;
}

/** Formats milliseconds in the normalized form (`90000` → `1m30s`, `0` → `0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) {
    return '0s';
  }
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
