/**
 * The schedule endpoints report error positions in UTF-8 bytes of the expression (spec →
 * Schedules); JavaScript strings index UTF-16 code units. `é` is 2 bytes and 1 unit, `😀` 4 bytes
 * and 2 units. This converts a byte range into the string range that covers the same characters.
 */
export function byteRangeToStringRange(text: string, position: number, length: number): { start: number; end: number } {
  const start = indexAtByte(text, position);
  const end = Math.max(start, indexAtByte(text, position + length));
  return { start, end };
}

/** The string index of the character that starts at (or contains) byte offset `offset`. */
function indexAtByte(text: string, offset: number): number {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > offset) {
      return index;
    }
    bytes += size;
    index += code >= 0x10000 ? 2 : 1;
  }
  return text.length;
}

/** The text split into plain and marked segments for underlining error ranges (merged, ordered). */
export function markSegments(
  text: string,
  ranges: Array<{ start: number; end: number }>,
): Array<{ text: string; marked: boolean }> {
  const sorted = ranges
    .map((r) => ({ start: r.start, end: r.end === r.start ? Math.min(text.length, r.start + 1) : r.end }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const segments: Array<{ text: string; marked: boolean }> = [];
  let at = 0;
  for (const range of sorted) {
    const start = Math.max(range.start, at);
    if (range.end <= start) {
      continue;
    }
    if (start > at) {
      segments.push({ text: text.slice(at, start), marked: false });
    }
    const last = segments[segments.length - 1];
    if (last?.marked && start === at) {
      last.text += text.slice(start, range.end);
    } else {
      segments.push({ text: text.slice(start, range.end), marked: true });
    }
    at = range.end;
  }
  if (at < text.length) {
    segments.push({ text: text.slice(at), marked: false });
  }
  return segments;
}
