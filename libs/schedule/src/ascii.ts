/**
 * ASCII-only text helpers. Schedule names (`MON`, `JAN`, `weekly`, `FREQ`) are ASCII words;
 * `String#toUpperCase`/`toLowerCase` apply full Unicode case mapping, which turns LATIN SMALL
 * LETTER LONG S (`ſ`) into `S`, DOTLESS I (`ı`) into `I` and KELVIN SIGN (`K`) into `k`, so
 * `ſun` or `frı` would become valid names. These helpers change ASCII letters only.
 */

/** `s` with `a`-`z` upper-cased and every other character unchanged. */
export function asciiUpper(s: string): string {
  return /[a-z]/.test(s) ? s.replace(/[a-z]+/g, (m) => m.toUpperCase()) : s;
}

/** `s` with `A`-`Z` lower-cased and every other character unchanged. */
export function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** UTF-16 index of the first character outside US-ASCII, or -1. */
export function firstNonAscii(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      return i;
    }
  }
  return -1;
}

/** The whole character (code point) starting at UTF-16 index `i`. */
export function charAt(s: string, i: number): string {
  return String.fromCodePoint(s.codePointAt(i) as number);
}

/** `U+017F`-style name of a character's code point. */
export function codePointName(ch: string): string {
  return `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}
