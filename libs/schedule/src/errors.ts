/**
 * Structured schedule errors. Positions and lengths are UTF-8 BYTE offsets into the original
 * expression (the API contract), while parsers work with JS string (UTF-16 code unit) indices;
 * the helpers here convert.
 */
import type { ScheduleError } from './types';

/**
 * Number of UTF-8 bytes needed for `s.slice(0, index)`.
 * @param s the original string
 * @param index a UTF-16 code-unit index (clamped to `[0, s.length]`); an index that falls between
 *   the two halves of a surrogate pair counts the whole pair as preceding it.
 * @returns byte offset (unit: UTF-8 bytes)
 */
export function utf8Offset(s: string, index: number): number {
  const end = Math.max(0, Math.min(index, s.length));
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      bytes += 1;
    } else if (c < 0x800) {
      bytes += 2;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
        continue;
      }
      bytes += 3; // lone high surrogate: encoded as U+FFFD (3 bytes) by TextEncoder
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/**
 * UTF-8 byte length of a whole string (same counting as `Buffer.byteLength(s, 'utf8')`, without
 * needing Node builtins).
 */
export function utf8Length(s: string): number {
  return utf8Offset(s, s.length);
}

/**
 * Builds a ScheduleError for the code-unit span `[start, end)` of `expr`, converting to UTF-8 bytes.
 * @param expr the ORIGINAL expression the user typed (not a trimmed or lower-cased copy of different length)
 * @param start UTF-16 index of the first offending character
 * @param end UTF-16 index just past the offending text (`end <= start` gives length 0)
 */
export function errorAt(
  expr: string,
  start: number,
  end: number,
  kind: string,
  message: string,
  suggestion: string | null = null,
): ScheduleError {
  const position = utf8Offset(expr, start);
  const length = end > start ? utf8Offset(expr, end) - position : 0;
  return { kind, position, length, message, suggestion };
}

/** Error covering the whole expression (e.g. `budget_exceeded`, `unknown_timezone` uses length 0). */
export function wholeExpressionError(
  expr: string,
  kind: string,
  message: string,
  suggestion: string | null = null,
): ScheduleError {
  return { kind, position: 0, length: utf8Length(expr), message, suggestion };
}

/**
 * Levenshtein edit distance extended with adjacent transpositions (optimal string alignment, so
 * `mnoday` → `monday` costs 1), unit costs, case-sensitive. Compares by Unicode code points, so
 * an emoji counts as one character.
 */
export function levenshtein(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  if (x.length === 0) {
    return y.length;
  }
  if (y.length === 0) {
    return x.length;
  }
  const rows: number[][] = [];
  for (let i = 0; i <= x.length; i++) {
    rows.push(new Array<number>(y.length + 1).fill(0));
    rows[i][0] = i;
  }
  for (let j = 0; j <= y.length; j++) {
    rows[0][j] = j;
  }
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        v = Math.min(v, rows[i - 2][j - 2] + 1);
      }
      rows[i][j] = v;
    }
  }
  return rows[x.length][y.length];
}

/**
 * The vocabulary entry closest to `word` (case-insensitive), or null when nothing is close.
 * "Close" means distance <= `maxDistance` (default: 1 for words up to 4 characters, 2 up to 8,
 * else 3) and strictly below the word's own length. Ties keep the vocabulary order, so put the
 * preferred spelling first. A prefix of at least 3 characters of a single entry also matches
 * (`wedn` → `wednesday`).
 */
/**
 * Every vocabulary entry as close to `word` as the best one (within the same limits as `suggest`),
 * in vocabulary order: more than one means the spelling alone cannot tell which word was meant.
 */
export function suggestAll(word: string, vocabulary: readonly string[]): string[] {
  const best = suggest(word, vocabulary);
  if (best === null) {
    return [];
  }
  const w = word.toLowerCase();
  const d = levenshtein(w, best.toLowerCase());
  if (
    d === 0 ||
    !vocabulary.some((v) => v.toLowerCase() === best.toLowerCase() && levenshtein(w, v.toLowerCase()) === d)
  ) {
    return [best];
  }
  return [best, ...vocabulary.filter((v) => v !== best && levenshtein(w, v.toLowerCase()) === d)];
}

export function suggest(word: string, vocabulary: readonly string[], maxDistance?: number): string | null {
  const w = word.toLowerCase();
  if (w.length === 0) {
    return null;
  }
  const limit = maxDistance ?? (w.length <= 4 ? 1 : w.length <= 8 ? 2 : 3);
  let best: string | null = null;
  let bestDist = Infinity;
  for (const entry of vocabulary) {
    const e = entry.toLowerCase();
    if (e === w) {
      return entry;
    }
    const d = levenshtein(w, e);
    if (d < bestDist) {
      bestDist = d;
      best = entry;
    }
  }
  if (best !== null && bestDist <= limit && bestDist < w.length) {
    return best;
  }
  if (w.length >= 3) {
    const prefixed = vocabulary.filter((v) => v.toLowerCase().startsWith(w));
    if (prefixed.length === 1) {
      return prefixed[0];
    }
  }
  return null;
}
