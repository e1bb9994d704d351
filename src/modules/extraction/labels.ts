import { isOpen, take, takeNumber, type Context } from './context.ts';
import { findOptions } from './enum.ts';
import type { FieldProfile, Mention } from './fields.ts';
import { tokenize, type Token } from './text.ts';
import { takeTextAfter } from './free-text.ts';
import { FALSE_WORDS, LINK_FILLERS, NUMBER_FILLERS, STRING_LINKS, TRUE_WORDS } from './words.ts';

/**
 * Rule 1, labelled values: a field named and then given a value, "width: 20", "tone = formal",
 * "the topic is ...", "with a width of about 20". Read in text order, so the first label of a
 * field wins and a string label's value is taken before later rules could read inside it.
 */
export function readLabels(ctx: Context, text: string): void {
  for (const mention of ctx.mentions) {
    const field = ctx.fields.find((f) => f.name === mention.field);
    if (field !== undefined && isOpen(ctx, field)) readLabel(ctx, field, mention, text);
  }
}

function readLabel(ctx: Context, field: FieldProfile, m: Mention, text: string): void {
  const t = ctx.tokens;
  let j = m.end + 1;
  const strong = isSeparator(t[j]);
  if (strong) j++;
  const sentence = t[m.end]?.sentence;
  const inSentence = (k: number) => t[k] !== undefined && t[k]?.sentence === sentence && !ctx.used[k];

  switch (field.kind) {
    case 'number': {
      const k = skip(t, j, NUMBER_FILLERS, 4);
      // Without a separator or a filler only the whole name labels a number: "width 20", not "check 3 pages".
      if (inSentence(k) && t[k]?.kind === 'number' && (strong || k > j || m.strength === 3)) takeNumber(ctx, field, k);
      return;
    }
    case 'boolean': {
      // Only "name: value" or "name is value": a bare word after a name is a cue read by rule 3 ("no sources needed").
      if (!strong && !STRING_LINKS.has(t[j]?.norm ?? '')) return;
      const k = skip(t, j, LINK_FILLERS, 3);
      const token = t[k];
      if (!inSentence(k) || token === undefined) return;
      const value =
        TRUE_WORDS.has(token.norm) || (strong && token.value === 1) ? true : FALSE_WORDS.has(token.norm) || (strong && token.value === 0) ? false : undefined;
      if (value !== undefined && (field.options.length === 0 || field.options.some((o) => o.value === value))) take(ctx, field, value, k);
      return;
    }
    case 'image':
    case 'link':
    case 'email': {
      const k = skip(t, j, LINK_FILLERS, 3);
      if (inSentence(k) && t[k]?.kind === (field.kind === 'email' ? 'email' : 'url')) take(ctx, field, t[k]?.norm ?? '', k);
      return;
    }
    case 'freeText':
      // "text: ..." or "please review: ...": everything after the colon, verbatim; "is" never
      // labels free text ("the text is in French").
      if (strong) takeTextAfter(ctx, field, j - 1, text);
      return;
    case 'enum':
    case 'string': {
      // "is" labels a string only after a clear name.
      const weak = !strong && m.strength >= 2 && STRING_LINKS.has(t[j]?.norm ?? '');
      if (!strong && !weak) return;
      const k = weak ? skip(t, j, STRING_LINKS, 3) : j;
      if (!inSentence(k)) return;
      const end = spanEnd(ctx, field, k, strong);
      if (field.kind === 'enum') readOption(ctx, field, k, end);
      else {
        const token = t[k];
        const value = token?.kind === 'quote' || token?.kind === 'url' ? token.norm : text.slice(token?.start ?? 0, t[end]?.end ?? 0).trim();
        if (value !== '') take(ctx, field, value, k, token?.kind === 'quote' || token?.kind === 'url' ? k : end);
      }
    }
  }
}

function readOption(ctx: Context, field: FieldProfile, from: number, to: number): void {
  const t = ctx.tokens;
  const token = t[from];
  // A quoted value is read word by word, like the option itself.
  const hits = token?.kind === 'quote' ? findOptions(field, tokenize(token.norm), () => true) : findOptions(field, t, (i) => !ctx.used[i], from, to + 1);
  const best = hits.sort((a, b) => b.tier - a.tier || a.start - b.start)[0];
  if (best !== undefined) take(ctx, field, best.value, from, to);
}

const isSeparator = (token: Token | undefined) => token?.kind === 'punct' && (token.norm === ':' || token.norm === '=');

function skip(tokens: Token[], from: number, words: Set<string>, limit: number): number {
  let k = from;
  while (k < from + limit && tokens[k]?.kind === 'word' && words.has(tokens[k]?.norm ?? '')) k++;
  return k;
}

/**
 * Last token of a label's value. A weak label ("the topic is X, and ...") ends with its clause; a
 * strong one ("topic: X") with its sentence. None runs into
 * the next "name:" label, nor past a comma into another field's name ("subject: bees, word count 900").
 */
function spanEnd(ctx: Context, field: FieldProfile, from: number, strong: boolean): number {
  const t = ctx.tokens;
  const first = t[from];
  let end = from;
  for (let k = from + 1; k < t.length; k++) {
    const token = t[k];
    if (token === undefined || token.sentence !== first?.sentence || (!strong && token.clause !== first?.clause)) break;
    if (token.kind === 'punct') {
      if (token.norm === '\n') break;
      if (token.norm === ',' && (ctx.owners[k + 1] ?? []).some((owner) => owner !== field.name)) break;
      if (token.norm === ',' || token.norm === '(' || token.norm === ')') continue;
      break;
    }
    const label = ctx.mentions.find((m) => m.start === k);
    if (label !== undefined && isSeparator(t[label.end + 1])) break;
    end = k;
  }
  return end;
}
