/**
 * A JSON parser for bodies whose bytes are signed. `JSON.parse` silently keeps the last of two
 * duplicate keys and rounds numbers it cannot hold, so the object it returns can differ from what the
 * signer meant while the signature still checks out over the re-serialised form. This parser refuses
 * both instead: duplicate keys, and numbers a JavaScript double cannot represent exactly (integers
 * beyond 2^53 - 1, literals that overflow or underflow, and literals the nearest double does not
 * print back as: re-serialising them for a signature check would change them).
 */

export class StrictJsonError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

const MAX_DEPTH = 64;

/** Significant digits and decimal point position of a JSON number literal, so 1.50e2 equals 150. */
function decimalOf(literal: string): string {
  const match = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!match) return literal;
  let digits = (match[1] ?? '') + (match[2] ?? '');
  let point = (match[1] ?? '').length + Number(match[3] ?? 0);
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  if (digits === '') return '0';
  return `${literal.startsWith('-') ? '-' : ''}${digits}@${point}`;
}

/** True when the double nearest the literal prints back as the same decimal: nothing was rounded. */
function sameDecimal(literal: string, printed: string): boolean {
  return decimalOf(literal) === decimalOf(printed);
}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * JSON.parse does the parsing (it is ten times faster than a parser written in JavaScript); a scan of
 * the text it accepted then looks for what it would have let through. The scan relies on the text
 * being valid JSON: outside strings, a digit or "-" can only start a number, and a string is a key
 * exactly when it follows "{" or an object's ",".
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = Number(/position (\d+)/.exec(String(error))?.[1] ?? 0);
    throw new StrictJsonError(error instanceof SyntaxError ? error.message : 'Nesting too deep', position);
  }
  refuseDuplicateKeysAndInexactNumbers(text);
  return value;
}

function refuseDuplicateKeysAndInexactNumbers(text: string): void {
  // One entry per open container: its keys so far (objects) or null (arrays).
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  const fail = (message: string, pos: number): never => {
    throw new StrictJsonError(`${message} at position ${pos}`, pos);
  };
  for (let pos = 0; pos < text.length; ) {
    const c = text.charCodeAt(pos);
    if (c === 0x22) {
      let end = text.indexOf('"', pos + 1);
      for (;;) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (expectKey) {
        const raw = text.slice(pos + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(pos, end + 1)) as string) : raw;
        const keys = open[open.length - 1]!;
        if (keys.has(key)) fail(`Duplicate key "${key}"`, pos);
        keys.add(key);
        expectKey = false;
      }
      pos = end + 1;
    } else if (c === 0x7b || c === 0x5b) {
      open.push(c === 0x7b ? new Set() : null);
      if (open.length > MAX_DEPTH) fail('Nesting too deep', pos);
      expectKey = c === 0x7b;
      pos++;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      expectKey = false;
      pos++;
    } else if (c === 0x2c) {
      expectKey = open[open.length - 1] !== null;
      pos++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = pos;
      const match = NUMBER.exec(text)!;
      const literal = match[0];
      const value = Number(literal);
      if (!Number.isFinite(value)) fail(`Number ${literal} is out of range`, pos);
      if (!match[2] && !match[3] && !Number.isSafeInteger(value)) fail(`Integer ${literal} cannot be held exactly (beyond 2^53 - 1)`, pos);
      if (!sameDecimal(literal, String(value))) fail(`Number ${literal} has more precision than can be held exactly`, pos);
      pos += literal.length;
    } else {
      pos++;
    }
  }
}
