/** Cron field tokens with UTF-16 spans, split by hand since this runs on every compile. */

/** A field token with its UTF-16 span in the original expression. */
export interface Token {
  text: string;
  start: number;
  end: number;
}

/** Splits on spaces, tabs, CR and LF, keeping UTF-16 spans (5-field cron's fields). */
export function tokenize(expr: string): Token[] {
  return splitOn(expr, isCronSeparator);
}

/**
 * Splits on any whitespace (line breaks, NBSP, …), keeping UTF-16 spans: kind detection and the
 * Quartz parser read the fields a user meant, then the parser rejects separators Quartz does not
 * accept (`separatorErrors`).
 */
export function tokenizeLoose(expr: string): Token[] {
  return splitOn(expr, isWhitespace);
}

const isCronSeparator = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

/** JavaScript's `\s`: WhiteSpace and LineTerminator of ECMA-262 (Unicode Zs, BOM, TAB, VT, FF, LF, CR, LS, PS). */
function isWhitespace(c: number): boolean {
  if (c <= 0x20) {
    return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  }
  if (c < 0xa0) {
    return false;
  }
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Maximal runs of non-separator code units (a scan, not a regular expression: this runs on every compile). */
function splitOn(expr: string, isSeparator: (c: number) => boolean): Token[] {
  const out: Token[] = [];
  let start = -1;
  for (let i = 0; i < expr.length; i++) {
    if (isSeparator(expr.charCodeAt(i))) {
      if (start >= 0) {
        out.push({ text: expr.slice(start, i), start, end: i });
        start = -1;
      }
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) {
    out.push({ text: expr.slice(start), start, end: expr.length });
  }
  return out;
}
