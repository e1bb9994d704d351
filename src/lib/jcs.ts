/**
 * RFC 8785 (JCS) canonical JSON of a value parsed from JSON text: members sorted by the UTF-16 code
 * units of their names (JavaScript's default string order), no whitespace, and strings and numbers
 * written as ECMAScript's JSON.stringify writes them, which is what RFC 8785 specifies.
 *
 * The `canonicalize` package does the same for any JavaScript value (toJSON, cycle detection); a
 * receipt's envelope is plain parsed JSON and is canonicalised on every ingestion, where the generic
 * version cost a third more.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('JSON has no form for NaN or Infinity');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += item === undefined ? 'null' : canonicalJson(item);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue; // as JSON.stringify leaves it out
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}
