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

export function parseStrictJson(text: string): unknown {
  let pos = 0;

  const fail = (message: string): never => {
    throw new StrictJsonError(`${message} at position ${pos}`, pos);
  };

  const skipWhitespace = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else return;
    }
  };

  const parseString = (): string => {
    // Delegate escapes to JSON.parse on the exact literal: same semantics, no hand-written decoder.
    const start = pos;
    pos++;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) fail('Unterminated string');
      if (c === 0x22) break;
      if (c < 0x20) fail('Control character in string');
      pos += c === 0x5c ? 2 : 1;
    }
    pos++;
    try {
      return JSON.parse(text.slice(start, pos)) as string;
    } catch {
      return fail('Invalid string escape');
    }
  };

  const parseNumber = (): number => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!match) return fail('Invalid number');
    const literal = match[0];
    pos += literal.length;
    const value = Number(literal);
    if (!Number.isFinite(value)) fail(`Number ${literal} is out of range`);
    if (!match[2] && !match[3] && !Number.isSafeInteger(value)) fail(`Integer ${literal} cannot be held exactly (beyond 2^53 - 1)`);
    if (!sameDecimal(literal, String(value))) fail(`Number ${literal} has more precision than can be held exactly`);
    return value;
  };

  const parseValue = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail('Nesting too deep');
    skipWhitespace();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const object: Record<string, unknown> = {};
      const seen = new Set<string>();
      skipWhitespace();
      if (text[pos] === '}') {
        pos++;
        return object;
      }
      for (;;) {
        skipWhitespace();
        if (text[pos] !== '"') fail('Expected a property name');
        const key = parseString();
        if (seen.has(key)) fail(`Duplicate key "${key}"`);
        seen.add(key);
        skipWhitespace();
        if (text[pos] !== ':') fail('Expected ":"');
        pos++;
        // defineProperty so a "__proto__" key is data, not a prototype change.
        Object.defineProperty(object, key, { value: parseValue(depth + 1), enumerable: true, writable: true, configurable: true });
        skipWhitespace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return object;
        }
        fail('Expected "," or "}"');
      }
    }
    if (c === '[') {
      pos++;
      const array: unknown[] = [];
      skipWhitespace();
      if (text[pos] === ']') {
        pos++;
        return array;
      }
      for (;;) {
        array.push(parseValue(depth + 1));
        skipWhitespace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return array;
        }
        fail('Expected "," or "]"');
      }
    }
    if (c === '"') return parseString();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return parseNumber();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return value;
      }
    }
    return fail('Unexpected token');
  };

  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) fail('Unexpected data after the JSON value');
  return value;
}
