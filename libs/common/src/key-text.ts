/** The size of the AES-256 keys that payload-codec.ts and secrets-crypto.ts read. */
export const KEY_BYTES = 32;

/**
 * The 32 bytes of a key written as 64 hex digits, or in base64 of 43 characters and an optional
 * `=` whose alphabet `base64Shape` accepts; surrounding white space is ignored. Null when the text
 * is not such a key (a 43rd base64 character with nonzero spare bits is a mistyped key).
 */
export function parseKeyText(text: string, base64Shape: RegExp[]): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    return Buffer.from(trimmed, 'hex');
  }
  if (base64Shape.some((shape) => shape.test(trimmed))) {
    const standard = trimmed.replace(/-/g, '+').replace(/_/g, '/').replace(/=$/, '');
    const bytes = Buffer.from(standard, 'base64');
    // The 43rd character carries 2 spare bits; nonzero ones mean a mistyped key.
    if (bytes.length === KEY_BYTES && bytes.toString('base64').replace(/=$/, '') === standard) {
      return bytes;
    }
  }
  return null;
}
