/**
 * Strict base64 for keys and signatures. Buffer.from(text, 'base64') silently skips junk, mixes
 * alphabets and ignores trailing bits, so two different strings could name the same key or
 * signature; here every accepted string has exactly one meaning and one byte sequence has only
 * the spellings "standard or URL-safe alphabet, with or without correct padding".
 */

const STANDARD = /^[A-Za-z0-9+/]*$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

export function decodeBase64Strict(text: string, expectedBytes?: number): Buffer | null {
  if (typeof text !== 'string') return null;

  let body = text;
  let padding = 0;
  while (padding < 2 && body.endsWith('=')) {
    body = body.slice(0, -1);
    padding++;
  }

  const urlSafe = !STANDARD.test(body);
  if (urlSafe && !URL_SAFE.test(body)) return null; // stray characters, '=' inside, or both alphabets

  const remainder = body.length % 4;
  if (remainder === 1) return null;
  // Padding is optional, but when present it has to complete the last quantum exactly.
  if (padding > 0 && (remainder === 0 || padding !== 4 - remainder)) return null;

  const bytes = Buffer.from(body, urlSafe ? 'base64url' : 'base64');
  if (expectedBytes !== undefined && bytes.length !== expectedBytes) return null;

  // Re-encoding yields zero unused bits; any other spelling of the last character is non-canonical.
  const reencoded = urlSafe ? bytes.toString('base64url') : bytes.toString('base64').replace(/=+$/, '');
  if (reencoded !== body) return null;

  return bytes;
}

export function encodeBase64(buf: Uint8Array): string {
  return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('base64');
}

export function encodeBase64Url(buf: Uint8Array): string {
  return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('base64url');
}
