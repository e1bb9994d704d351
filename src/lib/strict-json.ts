/**
 * A JSON parser for bodies whose bytes are signed. `JSON.parse` silently keeps the last of two
 * duplicate keys and rounds numbers it cannot hold, so the object it returns can differ from what the
 * signer meant while the signature still checks out over the re-serialised form. This parser refuses
 * both instead: duplicate keys, and numbers a JavaScript double cannot represent exactly (integers
 * beyond 2^53 - 1, literals that overflow or underflow, and literals the nearest double does not
 * print back as: re-serialising them for a signature check would change them).
 */

import { MAX_JSON_DEPTH } from './json-depth.ts';

export class StrictJsonError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

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
 * the text it accepted then looks for what it would have let through. The scans rely on the text
 * being valid JSON: outside strings, a digit or "-" can only start a number, a ":" can only follow a
 * key, and a string is a key exactly when it follows "{" or an object's ",".
 *
 * Duplicate keys are found by counting: JSON.parse keeps one of two equal keys, so the value then
 * holds fewer keys than the text has colons. Only then does the slower scan run that names the key
 * (it keeps a set of keys per object: a third of the check's time on every receipt, spent for nothing
 * on the ones without duplicates).
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = Number(/position (\d+)/.exec(String(error))?.[1] ?? 0);
    throw new StrictJsonError(error instanceof SyntaxError ? error.message : 'Nesting too deep', position);
  }
  // The scan first: it refuses nesting deeper than MAX_JSON_DEPTH, which keysOf's recursion could not survive.
  const colons = colonsAfterCheckingNumbers(text);
  if (keysOf(value) !== colons) {
    refuseDuplicateKeys(text);
    throw new StrictJsonError('Duplicate key', 0); // the scan above names it; this is never reached
  }
  return value;
}

/** Keys held by every object in a parsed value. */
function keysOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += keysOf(item);
    return count;
  }
  for (const key of Object.keys(value)) count += 1 + keysOf((value as Record<string, unknown>)[key]);
  return count;
}

/** Position just past the string starting at `start` (its opening quote). */
function afterString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end + 1;
    end = text.indexOf('"', end + 1);
  }
}

/** Length of the number literal at `pos`, which a double must hold exactly. */
function exactNumberAt(text: string, pos: number): number {
  NUMBER.lastIndex = pos;
  const match = NUMBER.exec(text)!;
  const literal = match[0];
  const value = Number(literal);
  if (!Number.isFinite(value)) throw new StrictJsonError(`Number ${literal} is out of range at position ${pos}`, pos);
  if (!match[2] && !match[3] && !Number.isSafeInteger(value))
    throw new StrictJsonError(`Integer ${literal} cannot be held exactly (beyond 2^53 - 1) at position ${pos}`, pos);
  if (!sameDecimal(literal, String(value))) throw new StrictJsonError(`Number ${literal} has more precision than can be held exactly at position ${pos}`, pos);
  return literal.length;
}

/** Colons outside strings (one per key), refusing inexact numbers and deep nesting on the way. */
function colonsAfterCheckingNumbers(text: string): number {
  let colons = 0;
  let depth = 0;
  for (let pos = 0; pos < text.length;) {
    const c = text.charCodeAt(pos);
    if (c === 0x22) {
      pos = afterString(text, pos);
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      pos += exactNumberAt(text, pos);
      continue;
    }
    if (c === 0x3a) colons++;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) throw new StrictJsonError(`Nesting too deep at position ${pos}`, pos);
    } else if (c === 0x7d || c === 0x5d) depth--;
    pos++;
  }
  return colons;
}

/** The key-by-key scan, for text known to hold a duplicate key: throws naming the first one. */
function refuseDuplicateKeys(text: string): void {
  // One entry per open container: its keys so far (objects) or null (arrays).
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let pos = 0; pos < text.length;) {
    const c = text.charCodeAt(pos);
    if (c === 0x22) {
      const end = afterString(text, pos);
      if (expectKey) {
        const raw = text.slice(pos + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(pos, end)) as string) : raw;
        const keys = open[open.length - 1]!;
        if (keys.has(key)) throw new StrictJsonError(`Duplicate key "${key}" at position ${pos}`, pos);
        keys.add(key);
        expectKey = false;
      }
      pos = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      open.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = open[open.length - 1] !== null;
    }
    pos++;
  }
}
