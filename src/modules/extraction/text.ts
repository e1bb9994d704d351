/**
 * Cuts a task's text into tokens the extraction rules read: words, numbers, URLs, quoted strings
 * and the punctuation that separates labels from values and clauses from each other. Every token
 * keeps its character range so string values are copied from the original text, case and all.
 */

import { foldText, pluralStem } from '../../lib/words.ts';

export type TokenKind = 'word' | 'number' | 'url' | 'email' | 'quote' | 'punct';

export interface Token {
  kind: TokenKind;
  /** Character range in the text. */
  start: number;
  end: number;
  /** Lowercase, accents removed; a quote's inner text; the punctuation character. */
  norm: string;
  /** What phrases compare: a word's stem, a number's value as text, otherwise `norm`. */
  key: string;
  /** Numbers only. */
  value?: number;
  /** Numbers only: written as a word ("three"), which weaker rules ignore. */
  spelled: boolean;
  /** Numbers only: an amount of something else, "12%", "$40", "3 million". */
  measure: boolean;
  /**
   * Numbers only: a unit written with the number ("20px" is px, "$40" is $, "2kg" is kg), or
   * `x1`/`x2` for the two sides of "1200x630"; '' when none.
   */
  unit: string;
  /** Index of the sentence (split at . ! ? ; and line breaks) and clause (also split at commas). */
  sentence: number;
  clause: number;
}

const SMALL = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000 };
const SPELLED = new Map<string, number>([
  ...SMALL.map((word, value) => [word, value] as const),
  ...Object.entries(TENS),
  ...Object.entries(SCALES),
  ['dozen', 12],
]);
// A unit glued to a number ("20px", "30s") leaves the number readable, and "k" multiplies it by a
// thousand ("1.5k" is 1500); other letters make a word ("1080p", "3rd").
const UNITS = 'px|pt|em|rem|ms|s|sec|secs|min|mins|h|hr|hrs|kb|mb|gb|cm|mm|m|km|kg|g|lb|lbs|oz|x|k';

const PATTERN = new RegExp(
  [
    /(?<url>https?:\/\/[^\s<>"'“”‘’]+)/.source,
    // Two sides of a size: "1200x630", "1440 × 900", "800 by 600".
    /(?<![\p{L}\p{N}.])(?<pairA>\d{1,5})(?:\s?[x×]\s?|\s+by\s+)(?<pairB>\d{1,5})(?![\p{L}\p{N}])/u.source,
    // A colour written in hex: "#f4f4f4".
    /(?<hex>#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![\p{L}\p{N}]))/u.source,
    /"(?<dq>[^"\n]{1,1000})"/.source,
    /“(?<cq>[^”\n]{1,1000})”/.source,
    /‘(?<sq>[^’\n]{1,1000})’/.source,
    // Code is quoted with backticks: "review `const a = 1`".
    /`(?<bq>[^`\n]{1,1000})`/.source,
    // A straight single quote opens a string only after a non-letter, so "don't" and "dogs'" stay words.
    /(?<![\p{L}\p{N}])'(?<aq>[^'\n]{0,999}[^\s'])'(?![\p{L}\p{N}])/u.source,
    // Bounded and anchored at the start of a run, so a long run without "@" is scanned once.
    /(?<email>(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8})/u.source,
    // Dates and times are words: their digits are not quantities.
    /(?<stamp>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?![\p{L}\p{N}])|(?<![\p{L}\p{N}/])\d{1,2}\/\d{1,2}(?:\/\d{2,4})?(?![\p{L}\p{N}/])|(?<![\p{L}\p{N}.])\d{1,2}\s?[ap]\.?m\.?(?![\p{L}\p{N}]))/u
      .source,
    `(?<num>(?<![\\p{L}\\p{N}.\\-#])-?(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?)(?!\\.\\d)(?=(?:${UNITS})?(?![\\p{L}\\p{N}]))`,
    // Dots inside a word keep it one word: "v2.0", "node.js".
    /(?<word>[\p{L}\p{N}]+(?:['’][\p{L}]+)*(?:\.[\p{L}\p{N}]+)*)/u.source,
    /(?<punct>[:=,.;!?()\n])/.source,
  ].join('|'),
  'gu',
);

const SENTENCE_END = new Set(['.', '!', '?', ';', '\n']);
// A full stop after these shortens a word, it does not end the sentence: "Dr. Maria Lopez".
const ABBREVIATIONS = new Set(['dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'jr', 'sr', 'mt', 'approx', 'vs', 'etc']);
const MEASURE_WORD = /^\s*(?:percent|per cent|million|billion|bn|usd|eur|gbp|dollars?|euros?|pounds?)\b/i;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let sentence = 0;
  let clause = 0;
  // Every token gets every property, in one order: tokens of one shape keep the rules fast.
  const push = (kind: TokenKind, start: number, end: number, norm: string, key: string, value?: number, spelled = false, measure = false, unit = '') => {
    tokens.push({ kind, start, end, norm, key, value, spelled, measure, unit, sentence, clause });
  };
  const pattern = PATTERN;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const g = match.groups ?? {};
    const start = match.index;
    let end = start + match[0].length;
    if (g.url !== undefined) {
      // Sentence punctuation right after a URL belongs to the sentence.
      const url = g.url.replace(/[.,;:!?)\]]+$/, '');
      end = start + url.length;
      push('url', start, end, url, url);
    } else if (g.dq !== undefined || g.cq !== undefined || g.sq !== undefined || g.aq !== undefined || g.bq !== undefined) {
      const inner = (g.dq ?? g.cq ?? g.sq ?? g.aq ?? g.bq ?? '').trim();
      // A quoted link is still a link.
      if (/^https?:\/\/\S+$/.test(inner)) push('url', start, end, inner, inner);
      else push('quote', start, end, inner, foldText(inner));
    } else if (g.pairA !== undefined && g.pairB !== undefined) {
      const second = match[0].lastIndexOf(g.pairB);
      push('number', start, start + g.pairA.length, g.pairA, String(Number(g.pairA)), Number(g.pairA), false, false, 'x1');
      push('number', start + second, end, g.pairB, String(Number(g.pairB)), Number(g.pairB), false, false, 'x2');
    } else if (g.hex !== undefined) {
      push('word', start, end, g.hex.toLowerCase(), g.hex.toLowerCase());
    } else if (g.email !== undefined) {
      push('email', start, end, g.email, g.email.toLowerCase());
    } else if (g.num !== undefined) {
      let value = Number(g.num.replace(/,/g, ''));
      end = start + g.num.length;
      const symbol = /[$€£¥₹]/.exec(
        text
          .slice(Math.max(0, start - 3), start)
          .replace(/\s+$/, '')
          .slice(-1) + (/^[€£¥₹]/.exec(text.slice(end, end + 1))?.[0] ?? ''),
      )?.[0];
      let glued = /^[a-z]+/i.exec(text.slice(end, end + 4))?.[0]?.toLowerCase() ?? '';
      if (glued === 'k') {
        value *= 1000;
        glued = '';
        end++;
      }
      const measure = text[end] === '%' || symbol !== undefined || MEASURE_WORD.test(text.slice(end, end + 12));
      push('number', start, end, text.slice(start, end), String(value), value, false, measure, symbol ?? glued);
    } else if (g.punct !== undefined) {
      push('punct', start, end, g.punct, g.punct);
      const previous = tokens[tokens.length - 2];
      const shortened = g.punct === '.' && previous?.kind === 'word' && previous.end === start && ABBREVIATIONS.has(previous.norm);
      if (SENTENCE_END.has(g.punct) && !shortened) {
        sentence++;
        clause++;
      } else if (g.punct === ',' || g.punct === '(' || g.punct === ')') clause++;
    } else {
      const norm = foldText(match[0]);
      const spelled = SPELLED.get(norm);
      if (spelled === undefined) push('word', start, end, norm, pluralStem(norm));
      else push('number', start, end, norm, String(spelled), spelled, true);
    }
    // Scanning resumes after the token: trimmed punctuation after a URL is read again and still ends the sentence.
    pattern.lastIndex = end;
  }
  return mergeSpelledNumbers(tokens);
}

/** "twenty five", "twenty-five", "twelve hundred" and "5 thousand" are one number. */
function mergeSpelledNumbers(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    const previous = out[out.length - 1];
    const value = previous?.value !== undefined && token.value !== undefined && previous.clause === token.clause ? combine(previous, token) : undefined;
    if (previous !== undefined && value !== undefined) {
      out[out.length - 1] = {
        ...previous,
        end: token.end,
        norm: `${previous.norm} ${token.norm}`,
        key: String(value),
        value,
        spelled: previous.spelled && token.spelled,
      };
    } else out.push(token);
  }
  return out;
}

function combine(previous: Token, token: Token): number | undefined {
  const [a, b] = [previous.value ?? 0, token.value ?? 0];
  if (previous.spelled && token.spelled && TENS[previous.norm] !== undefined && b >= 1 && b <= 9) return a + b;
  if (token.spelled && SCALES[token.norm] !== undefined && a > 0 && (previous.spelled || Number.isInteger(a))) return a * b;
  return undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions, as typos go). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((d[(i - 1) * cols + j] ?? 0) + 1, (d[i * cols + j - 1] ?? 0) + 1, (d[(i - 1) * cols + j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (d[(i - 2) * cols + j - 2] ?? 0) + 1);
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1] ?? 0;
}
