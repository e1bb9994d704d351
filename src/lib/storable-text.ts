const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `text` cannot be stored as sent, or null when it can. PostgreSQL refuses U+0000 in text (the
 * statement fails), and database drivers encode a lone UTF-16 surrogate as U+FFFD, so either would
 * be stored differently, or not at all, depending on the database.
 */
export function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone surrogate (text must be valid Unicode)';
  return null;
}

/** The first string (value or key) in a parsed JSON value that cannot be stored, with its JSON Pointer path. */
export function findUnstorableText(root: unknown): { path: string; problem: string } | null {
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) return { path, problem };
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}/${i}`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const problem = unstorableText(key);
        if (problem) return { path: at, problem: `name ${problem}` };
        stack.push([item, at]);
      }
    }
  }
  return null;
}
