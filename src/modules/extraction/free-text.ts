import { isOpen, take, type Context } from './context.ts';
import type { FieldProfile } from './fields.ts';
import { editDistance, tokenize } from './text.ts';
import { isStopword, wordsOf } from '../../lib/words.ts';

/**
 * The text an agent works on (a free-text field: text, prompt, code...) is copied verbatim: what
 * follows the request's colon is taken whole, to the end of the request, whatever it holds
 * ("please review: const a = 1", "review this python: def f(a): return a"), and a request with
 * nothing marking its text loses only its leading instruction ("translate good morning").
 */

/** The schema's only free-text field while it is still open. */
export function onlyOpenFreeText(ctx: Context): FieldProfile | undefined {
  const freeText = ctx.fields.filter((f) => f.kind === 'freeText');
  return freeText.length === 1 && freeText[0] !== undefined && isOpen(ctx, freeText[0]) ? freeText[0] : undefined;
}

/**
 * Everything after the separator at `colon`, verbatim (a lone quoted string without its quotes),
 * up to the end of the request, a value an earlier rule took or the next "name:" label of another
 * field. Returns false when nothing follows.
 */
export function takeTextAfter(ctx: Context, field: FieldProfile, colon: number, text: string): boolean {
  const t = ctx.tokens;
  let stop = colon + 1;
  for (; stop < t.length; stop++) {
    if (ctx.used[stop]) break;
    const label = ctx.mentions.find((m) => m.start === stop && m.field !== field.name);
    const after = label === undefined ? undefined : t[label.end + 1];
    if (after?.kind === 'punct' && (after.norm === ':' || after.norm === '=')) break;
  }
  const from = colon + 1;
  const to = stop - 1;
  if (to < from || t.slice(from, stop).every((token) => token.kind === 'punct')) return false;
  const single = to === from || (to === from + 1 && t[to]?.kind === 'punct' && t[to]?.norm !== ')');
  const first = t[from];
  if (single && (first?.kind === 'quote' || first?.kind === 'url' || first?.kind === 'email')) {
    // A link or address after a colon belongs to a field that takes one, when there is such a field.
    if (first.kind !== 'quote' && ctx.fields.some((f) => f.kind === 'link' || f.kind === 'image' || f.kind === 'email')) return false;
    take(ctx, field, first.norm, from, to);
    return true;
  }
  const end = stop < t.length ? (t[stop]?.start ?? text.length) : text.length;
  let value = text.slice(t[colon]?.end ?? 0, end).trim();
  // Cut short by another field's label: the comma before it is not part of the text.
  if (stop < t.length) value = value.replace(/[\s,;(]+$/, '');
  if (value === '') return false;
  take(ctx, field, value, from, to);
  return true;
}

/**
 * The request's colon: the first one whose value no label took ("max words: 200" is a label's,
 * "quotes: yes" too). Runs right after the labels, before any rule could read a number or an
 * option inside the text.
 */
export function readTextAfterColon(ctx: Context, text: string): void {
  const field = onlyOpenFreeText(ctx);
  if (field === undefined) return;
  const t = ctx.tokens;
  for (let c = 0; c < t.length; c++) {
    if (t[c]?.kind !== 'punct' || t[c]?.norm !== ':' || ctx.used[c] || ctx.used[c + 1]) continue;
    if (takeTextAfter(ctx, field, c, text)) return;
  }
}

const POLITE = new Set(['please', 'pls', 'plz', 'kindly', 'just', 'now']);
const ASKING = new Set(['can', 'could', 'would', 'will']);
const YOU = new Set(['you', 'u']);
// Verbs that ask for the work itself; the field's own description adds its verb ("Text to shout").
const INSTRUCTION_VERBS = new Set(['translate', 'summarise', 'summarize', 'review', 'proofread', 'reverse', 'paraphrase', 'rewrite', 'echo', 'repeat']);
const POINTERS = new Set(['this', 'that', 'it', 'these', 'those', 'following', 'text', 'below', 'above', 'attached', 'me', 'my', 'our', 'for']);
const TRAILING_POLITENESS = /[\s,]+(?:please|pls|plz|thanks|thank you|thx)[.!]*$/i;

/**
 * The whole request as the text when nothing marks it, without its leading instruction:
 * "translate good morning" gives "good morning", "please reverse hello world" "hello world". The
 * instruction is a verb of the field's description or one that asks for the work itself; a
 * request that points elsewhere ("translate this") or is no instruction ("A watercolour fox")
 * stays whole.
 */
export function withoutInstruction(field: FieldProfile, description: string): string {
  const whole = description.trim();
  const tokens = tokenize(whole);
  let k = 0;
  for (;;) {
    const word = tokens[k]?.norm ?? '';
    if (POLITE.has(word)) k++;
    else if (ASKING.has(word) && YOU.has(tokens[k + 1]?.norm ?? '')) k += 2;
    else break;
  }
  const verb = tokens[k];
  const rest = tokens[k + 1];
  if (verb?.kind !== 'word' || rest === undefined || rest.kind === 'punct' || !isInstruction(field, verb.norm)) return whole;
  if (POINTERS.has(rest.norm) || (rest.norm === 'the' && POINTERS.has(tokens[k + 2]?.norm ?? ''))) return whole;
  const value = whole.slice(rest.start).replace(TRAILING_POLITENESS, '').trim();
  return value === '' ? whole : value;
}

function isInstruction(field: FieldProfile, word: string): boolean {
  const own = wordsOf(field.definition.description ?? '').filter((w) => w.length > 3 && !isStopword(w));
  const verbs = [...INSTRUCTION_VERBS, ...own];
  // A typo is still the instruction ("tranlsate"), for words long enough not to be another word.
  return verbs.some((v) => v === word || (v.length >= 7 && word.length >= 7 && editDistance(v, word) <= 1));
}
