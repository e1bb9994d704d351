/**
 * How deep JSON may nest anywhere the service reads it: request bodies, JSON carried inside strings
 * (an agent's input schema), and JSON from outside calls. Everything that walks a parsed value
 * (canonical JSON, JSON.stringify, validation, the database drivers) recurses once per level, so a
 * few thousand levels overflow the stack; the text is measured before anything parses it.
 */
export const MAX_JSON_DEPTH = 64;

export class JsonTooDeepError extends Error {
  constructor(readonly position: number) {
    super(`JSON nests deeper than ${MAX_JSON_DEPTH} levels (at position ${position})`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * Position of the bracket that opens level `max + 1`, or -1 when the text nests no deeper than `max`.
 * Brackets inside strings do not count. Works on any text: for text that is not JSON the answer
 * only bounds what a parser would build from it.
 */
export function depthExceededAt(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let pos = 0; pos < text.length; pos++) {
    const c = text.charCodeAt(pos);
    if (c === 0x22) {
      // Skip the string: its end is the next quote not escaped by an odd run of backslashes.
      for (pos++; pos < text.length; pos++) {
        const s = text.charCodeAt(pos);
        if (s === 0x5c) pos++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return pos;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return -1;
}

/** JSON.parse for text from anywhere: refuses nesting beyond MAX_JSON_DEPTH before parsing. */
export function parseJsonWithinDepth(text: string): unknown {
  const at = depthExceededAt(text);
  if (at >= 0) throw new JsonTooDeepError(at);
  return JSON.parse(text);
}
