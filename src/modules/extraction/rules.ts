import { gap, isOpen, mentionsOf, nearPairs, pairUp, take, takeNumber, type Context } from './context.ts';
import { findOptions, type OptionHit } from './enum.ts';
import { withoutInstruction } from './free-text.ts';
import type { FieldProfile, Mention } from './fields.ts';
import { COLORS, CUISINES, UNITS } from './lexicon.ts';
import { identifierWords, isStopword, wordsOf } from '../../lib/words.ts';
import { AFTER_FALSE, AFTER_TRUE, NEGATIVE_CUES, NEGATORS, POSITIVE_CUES } from './words.ts';

/** Tokens a value may sit from its field's mention without a label. */
const NEAR = 5;
const NEAR_URL = 8;
const MAX_TOPIC_WORDS = 30;
const LIST_GLUE = new Set(['and', 'a', 'an', 'the', 'plus', 'also', 'it', 'them', 'please']);
const YEAR = /^(?:1[89]|2[01])\d\d$/;
const IMAGE_PATH = /\.(?:png|jpe?g|gif|webp|svg|bmp|avif|tiff?|heic)$/i;

/**
 * Rule 2, numbers: just before the name ("300 words", "three short paragraphs"), then the
 * nearest name in the same sentence, then a lone number for a lone number field.
 */
export function readNumbers(ctx: Context): void {
  const t = ctx.tokens;
  for (const field of ctx.fields) {
    if (field.kind !== 'number') continue;
    for (const m of mentionsOf(ctx, field)) {
      if (!isOpen(ctx, field)) break;
      // Up to two describing words may sit between: "3 short paragraphs".
      let k = m.start - 1;
      while (k >= m.start - 3 && t[k]?.kind === 'word' && (ctx.owners[k]?.length ?? 0) === 0 && t[k]?.clause === t[m.start]?.clause) k--;
      if (t[k]?.kind === 'number' && !ctx.used[k] && t[k]?.clause === t[m.start]?.clause) takeNumber(ctx, field, k);
    }
  }
  // Spelled numbers ("one") are too often not quantities to travel further than that.
  pairUp(
    ctx,
    nearPairs(ctx, ['number'], 'number', NEAR, (token) => !token.spelled),
    (field, at) => takeNumber(ctx, field, at),
  );

  // Only when no other figure is left, and not a year or an amount of something else:
  // "the 2024 Olympics" is no 2024-word article, "revenue grew 12%" no 12-word summary. The field
  // is the schema's only number field, or the only open one the text names ("lowest quality that
  // still looks ok, maybe 60").
  const free = t.flatMap((token, at) => (token.kind === 'number' && !token.spelled && !ctx.used[at] ? [at] : []));
  const numberFields = ctx.fields.filter((f) => f.kind === 'number');
  const named = numberFields.filter((f) => isOpen(ctx, f) && mentionsOf(ctx, f).length > 0);
  // With none named, a field with a default already has a value: the one without is what is asked ("invoice acme for 500").
  const undefaulted = numberFields.filter((f) => isOpen(ctx, f) && f.definition.default === undefined);
  const only =
    numberFields.length === 1 ? numberFields[0] : named.length === 1 ? named[0] : named.length === 0 && undefaulted.length === 1 ? undefaulted[0] : undefined;
  const lone = t[free[0] ?? -1];
  if (
    only !== undefined &&
    isOpen(ctx, only) &&
    free.length === 1 &&
    lone !== undefined &&
    !lone.measure &&
    !YEAR.test(lone.norm) &&
    !countsSomethingElse(ctx, only, free[0] ?? 0)
  ) {
    takeNumber(ctx, only, free[0] ?? 0);
  }
}

/** "10,000 users" is no length in characters: a number followed by a noun other than the field's unit counts that noun. */
function countsSomethingElse(ctx: Context, field: FieldProfile, at: number): boolean {
  if (field.unit === null) return false;
  const next = ctx.tokens[at + 1];
  if (next === undefined || next.kind !== 'word' || isStopword(next.norm) || next.sentence !== ctx.tokens[at]?.sentence) return false;
  return UNITS[next.norm]?.dimension !== field.unit.dimension && !(ctx.owners[at + 1] ?? []).includes(field.name);
}

/**
 * Rule 3, booleans: the nearest cue before a mention ("with captions", "no watermark", "don't
 * add a logo"), else a verdict just after it ("captions are not needed"), else true for the
 * field's whole name asked for plainly ("on a transparent background") or one word of it listed
 * on its own ("anime style, transparent"). The first mention that says something decides.
 */
export function readBooleans(ctx: Context): void {
  for (const field of ctx.fields) {
    if (field.kind !== 'boolean') continue;
    for (const m of mentionsOf(ctx, field)) {
      if (!isOpen(ctx, field)) break;
      const said = polarityBefore(ctx, m) ?? polarityAfter(ctx, m) ?? (m.strength === 3 || (m.strength === 2 && listed(ctx, m)) ? true : undefined);
      const value = said === undefined || !m.inverted ? said : !said;
      if (value !== undefined && (field.options.length === 0 || field.options.some((o) => o.value === value))) take(ctx, field, value, m.start, m.end);
    }
  }
}

function polarityBefore(ctx: Context, m: Mention): boolean | undefined {
  const t = ctx.tokens;
  const clause = t[m.start]?.clause;
  for (let k = m.start - 1; k >= Math.max(0, m.start - 5); k--) {
    const word = t[k]?.norm ?? '';
    if (t[k]?.clause !== clause) return undefined;
    if (NEGATIVE_CUES.has(word)) return false;
    if (POSITIVE_CUES.has(word)) {
      const undone = [t[k - 1], t[k - 2]].some((before) => before !== undefined && before.clause === clause && NEGATORS.has(before.norm));
      return !undone;
    }
  }
  return undefined;
}

/** Named on its own as an item of a list: "anime style, transparent, 2 images". */
function listed(ctx: Context, m: Mention): boolean {
  const t = ctx.tokens;
  const clause = t[m.start]?.clause;
  const alone = (k: number) => t[k] === undefined || t[k]?.clause !== clause || t[k]?.kind === 'punct' || LIST_GLUE.has(t[k]?.norm ?? '');
  for (let k = m.start - 1; k >= 0 && t[k]?.clause === clause; k--) if (!alone(k)) return false;
  for (let k = m.end + 1; k < t.length && t[k]?.clause === clause; k++) if (!alone(k)) return false;
  return true;
}

function polarityAfter(ctx: Context, m: Mention): boolean | undefined {
  const t = ctx.tokens;
  const clause = t[m.end]?.clause;
  let negated = false;
  for (let k = m.end + 1; k <= m.end + 4; k++) {
    const word = t[k]?.norm ?? '';
    if (t[k]?.clause !== clause) return undefined;
    if (NEGATORS.has(word)) negated = true;
    else if (AFTER_FALSE.has(word)) return negated;
    else if (AFTER_TRUE.has(word)) return !negated;
  }
  return undefined;
}

/**
 * Rule 4, URLs and email addresses: the nearest to a mention of an image, link or email field;
 * then image fields take URLs whose path ends in an image extension, link fields the first URLs
 * left, email fields the first addresses left, and an image field still empty the text's only URL left.
 */
export function readAddresses(ctx: Context): void {
  const takeToken = (field: FieldProfile, at: number) => take(ctx, field, ctx.tokens[at]?.norm ?? '', at);
  pairUp(ctx, [...nearPairs(ctx, ['image', 'link'], 'url', NEAR_URL), ...nearPairs(ctx, ['email'], 'email', NEAR_URL)], takeToken);
  const unused = (kind: 'url' | 'email') => ctx.tokens.flatMap((token, at) => (token.kind === kind && !ctx.used[at] ? [at] : []));
  const fill = (kind: FieldProfile['kind'], accept: (at: number) => boolean) => {
    for (const field of ctx.fields) {
      if (field.kind !== kind || !isOpen(ctx, field)) continue;
      const at = unused(kind === 'email' ? 'email' : 'url').find(accept);
      if (at !== undefined) takeToken(field, at);
    }
  };
  fill('image', (at) => IMAGE_PATH.test(pathOf(ctx.tokens[at]?.norm ?? '')));
  fill('link', () => true);
  fill('email', () => true);
  const left = unused('url');
  const openImages = ctx.fields.filter((f) => f.kind === 'image' && isOpen(ctx, f));
  if (left.length === 1 && openImages.length === 1 && openImages[0] !== undefined) take(ctx, openImages[0], ctx.tokens[left[0] ?? 0]?.norm ?? '', left[0] ?? 0);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * Rule 5, enum options anywhere in the text: an option named outright beats a synonym, which
 * beats a near spelling; among equals the one closest to a mention of the field, then the first.
 * Words that name another field, or were taken by an earlier rule, are not options.
 */
export function readOptions(ctx: Context): void {
  const candidates: { field: FieldProfile; hit: OptionHit; distance: number }[] = [];
  for (const field of ctx.fields) {
    if (field.kind !== 'enum' || !isOpen(ctx, field)) continue;
    const usable = (i: number) => !ctx.used[i] && (ctx.owners[i] ?? []).every((owner) => owner === field.name);
    const mentions = mentionsOf(ctx, field);
    const otherField = (i: number) => (ctx.owners[i] ?? []).some((owner) => owner !== field.name);
    for (const hit of findOptions(field, ctx.tokens, usable, 0, ctx.tokens.length, otherField)) {
      // A word naming the field is not another way of saying an option ("budget" of a budget field).
      if (hit.tier < 3 && ctx.mentions.some((m) => m.field === field.name && m.strength >= 2 && m.start <= hit.start && hit.start <= m.end)) continue;
      const distances = mentions.map((m) => gap(ctx, m, hit) ?? Infinity);
      candidates.push({ field, hit, distance: Math.min(Infinity, ...distances) });
    }
  }
  const directed = candidates.filter((c) => fitsDirection(ctx, c, candidates));
  directed.sort((a, b) => b.hit.tier - a.hit.tier || a.distance - b.distance || a.hit.start - b.hit.start);
  for (const { field, hit } of directed) {
    const free = ctx.used.slice(hit.start, hit.end + 1).every((u) => !u);
    if (isOpen(ctx, field) && free) take(ctx, field, hit.value, hit.start, hit.end);
  }
}

const SOURCE_WORDS = new Set(['source', 'from', 'original', 'origin', 'input']);
const TARGET_WORDS = new Set(['target', 'to', 'into', 'destination', 'output']);

/**
 * Two enums of the same options told apart by direction (source and target language): "from X"
 * is the source, "to X", "into X", "in X" the target; with no such word, a lone option is the
 * target and of two ("english -> french") the first is the source.
 */
function fitsDirection(ctx: Context, candidate: { field: FieldProfile; hit: OptionHit }, all: { field: FieldProfile; hit: OptionHit }[]): boolean {
  const direction = directionOf(candidate.field);
  if (direction === null) return true;
  const t = ctx.tokens;
  const clause = t[candidate.hit.start]?.clause;
  let cue: 'source' | 'target' | null = null;
  for (let k = candidate.hit.start - 1; k >= Math.max(0, candidate.hit.start - 2); k--) {
    if (t[k]?.clause !== clause) break;
    const word = t[k]?.norm ?? '';
    if (word === 'from') cue = 'source';
    else if (word === 'to' || word === 'into' || word === 'in') cue = 'target';
    if (cue !== null) break;
  }
  if (cue !== null) return cue === direction;
  if (direction === 'target') return true;
  // A source without a cue only before another option the target takes.
  return all.some(
    (other) =>
      other.field !== candidate.field &&
      directionOf(other.field) === 'target' &&
      other.hit.start > candidate.hit.end &&
      other.hit.value !== candidate.hit.value,
  );
}

function directionOf(field: FieldProfile): 'source' | 'target' | null {
  const words = identifierWords(field.name);
  if (words.some((w) => SOURCE_WORDS.has(w))) return 'source';
  if (words.some((w) => TARGET_WORDS.has(w))) return 'target';
  return null;
}

/**
 * Rule 6, other strings, in this order: a quoted string near the field's mention; the quoted
 * part of the request for the only free-text field; "about X", then "for X", for a topic; a
 * quoted title; a word of the kind a description's examples show; the words after the
 * preposition a description ends with; a lone quoted string for the lone plain string field
 * left; the text after a colon for free text or a topic; the object of the free-text
 * description's verb; and for the only field named for the request itself (text, prompt,
 * query...), the whole description.
 */
export function readStrings(ctx: Context, text: string, description: string): void {
  const kinds: FieldProfile['kind'][] = ['string', 'freeText'];
  pairUp(ctx, nearPairs(ctx, kinds, 'quote', NEAR), (field, at) => take(ctx, field, ctx.tokens[at]?.norm ?? '', at));
  const quotes = () => ctx.tokens.flatMap((token, at) => (token.kind === 'quote' && !ctx.used[at] ? [at] : []));
  const freeText = ctx.fields.filter((f) => f.kind === 'freeText');
  const onlyFreeText = freeText.length === 1 && freeText[0] !== undefined && isOpen(ctx, freeText[0]) ? freeText[0] : undefined;
  // The quoted part of a request is the text to work on ("translate 'where is the station' into
  // French"); a quoted word is not ("a 'retro' poster").
  const lone = quotes().length === 1 ? quotes()[0] : undefined;
  if (onlyFreeText !== undefined && lone !== undefined && (ctx.tokens[lone]?.norm.split(/\s+/).length ?? 0) > 1)
    take(ctx, onlyFreeText, ctx.tokens[lone]?.norm ?? '', lone);
  const topics = ctx.fields.filter((f) => f.about && isOpen(ctx, f));
  if (topics.length === 1 && topics[0] !== undefined) readAbout(ctx, topics[0], text);
  // "a caption for our new vegan donut": without "about", what the thing is for.
  if (topics.length === 1 && topics[0] !== undefined && isOpen(ctx, topics[0])) readAfter(ctx, topics[0], 'for', text);
  // A quoted name after "called", "named", "titled" is the title.
  for (const field of ctx.fields.filter((f) => f.kind === 'string' && f.role === 'title' && isOpen(ctx, f))) {
    const at = quotes().find((q) => NAMING.has(ctx.tokens[q - 1]?.norm ?? '')) ?? (quotes().length === 1 ? quotes()[0] : undefined);
    if (at !== undefined) take(ctx, field, ctx.tokens[at]?.norm ?? '', at);
  }
  for (const field of ctx.fields.filter((f) => f.kind === 'string' && isOpen(ctx, f))) readExample(ctx, field, text);
  for (const field of ctx.fields.filter((f) => (f.kind === 'string' || f.kind === 'freeText') && f.preposition !== null && isOpen(ctx, f)))
    readAfter(ctx, field, field.preposition ?? '', text);
  const openFields = ctx.fields.filter((f) => f.kind === 'string' && isOpen(ctx, f));
  if (openFields.length === 1 && openFields[0] !== undefined && quotes().length === 1)
    take(ctx, openFields[0], ctx.tokens[quotes()[0] ?? 0]?.norm ?? '', quotes()[0] ?? 0);
  // What follows the colon of "translate into swahili: good morning" or "LinkedIn: we're hiring" is the text, or the topic.
  for (const field of [onlyFreeText, ...topics]) if (field !== undefined && isOpen(ctx, field)) readAfterColon(ctx, field, text);
  if (onlyFreeText !== undefined && isOpen(ctx, onlyFreeText)) readObject(ctx, onlyFreeText, text);
  if (onlyFreeText !== undefined && isOpen(ctx, onlyFreeText)) ctx.found.set(onlyFreeText.name, withoutInstruction(onlyFreeText, description));
}

const NAMING = new Set(['called', 'named', 'titled', 'entitled']);
const LEADING_ARTICLES = new Set(['the', 'a', 'an']);
const PHRASE_BREAKS = new Set([
  'and',
  'but',
  'so',
  'because',
  'please',
  'thanks',
  'by',
  'within',
  'due',
  'payable',
  'at',
  'in',
  'on',
  'every',
  'each',
  'what',
  'which',
  'that',
]);
const MAX_PHRASE_WORDS = 8;

/**
 * A field whose description ends with a preposition takes the words after that preposition in
 * the request: "Ingredients to cook with" reads "with chickpeas and spinach", "What the invoice is
 * for" reads "for the annual maintenance contract" (a leading article dropped). The phrase ends
 * at the clause, a number, a word another rule took or another field's mention; "and" joins
 * words of the phrase only between two of them.
 */
function readAfter(ctx: Context, field: FieldProfile, preposition: string, text: string): void {
  const t = ctx.tokens;
  const introducers = preposition === 'with' ? ['with', 'using', 'got', 'have'] : [preposition];
  for (let a = 0; a < t.length; a++) {
    if (!introducers.includes(t[a]?.norm ?? '') || ctx.used[a]) continue;
    let start = a + 1;
    while (LEADING_ARTICLES.has(t[start]?.norm ?? '')) start++;
    let end = start - 1;
    for (let k = start; k < Math.min(t.length, start + MAX_PHRASE_WORDS); k++) {
      const token = t[k];
      // A list goes on past its commas: "with eggs, cheese and ham".
      if (token?.norm === ',' && k > start && listContinues(ctx, k)) continue;
      if (token === undefined || token.kind !== 'word' || (token.clause !== t[k - 1]?.clause && t[k - 1]?.norm !== ',') || ctx.used[k]) break;
      if ((ctx.owners[k] ?? []).some((owner) => owner !== field.name)) break;
      if (PHRASE_BREAKS.has(token.norm) && !(token.norm === 'and' && t[k + 1]?.kind === 'word' && !ctx.used[k + 1] && t[k + 1]?.clause === token.clause)) break;
      end = k;
    }
    while (end >= start && isStopword(t[end]?.norm ?? '')) end--;
    if (end < start || (end === start && isStopword(t[start]?.norm ?? ''))) continue;
    take(ctx, field, text.slice(t[start]?.start ?? 0, t[end]?.end ?? 0), start, end);
    return;
  }
}

const POINTERS = new Set(['this', 'that', 'it', 'these', 'those', 'following', 'text', 'below', 'above', 'attached', 'me', 'my', 'our', 'for', 'please']);

/**
 * "translate good morning everyone into German": the object of the verb the free-text field's
 * description names ("Text to translate"), up to the preposition before a value another rule
 * took ("into German").
 */
function readObject(ctx: Context, field: FieldProfile, text: string): void {
  const verbs = new Set(wordsOf(field.definition.description ?? '').filter((w) => w.length > 3 && !isStopword(w)));
  const t = ctx.tokens;
  const verb = t.findIndex(
    (token, i) => token.kind === 'word' && verbs.has(token.norm) && !ctx.used[i] && (ctx.owners[i] ?? []).every((owner) => owner === field.name),
  );
  if (verb < 0) return;
  let end = verb;
  for (let k = verb + 1; k < t.length && t[k]?.sentence === t[verb]?.sentence; k++) {
    if (['into', 'to', 'in', 'from'].includes(t[k]?.norm ?? '') && ctx.used[k + 1]) break;
    if (ctx.used[k] || t[k]?.kind === 'punct') return;
    end = k;
  }
  if (end === verb || !ctx.used[end + 2]) return;
  // "translate this into French", "summarise the following for my team" point at a text given elsewhere, or nowhere.
  const first = t[verb + 1]?.norm ?? '';
  if (POINTERS.has(first) || (first === 'the' && POINTERS.has(t[verb + 2]?.norm ?? ''))) return;
  take(ctx, field, text.slice(t[verb + 1]?.start ?? 0, t[end]?.end ?? 0), verb + 1, end);
}

/** After a comma, a short item of a list that ends with "and ..." or another comma, nothing in it taken or naming a field. */
function listContinues(ctx: Context, comma: number): boolean {
  const t = ctx.tokens;
  for (let k = comma + 1; k < Math.min(t.length, comma + 6); k++) {
    const token = t[k];
    if (token === undefined || token.sentence !== t[comma]?.sentence || ctx.used[k] || (ctx.owners[k]?.length ?? 0) > 0) return false;
    if (token.kind === 'punct') return token.norm === ',';
    if (token.kind !== 'word') return false;
    if (token.norm === 'and') return k > comma + 1;
  }
  return false;
}

/** What a description gives as examples ("e.g. Thai, Italian") names a kind of word: the request's word of that kind. */
function readExample(ctx: Context, field: FieldProfile, text: string): void {
  const examples = /\b(?:e\.g\.?|such as|like)\s+(.+)$/i.exec(field.definition.description ?? '')?.[1];
  if (examples === undefined) return;
  const given = wordsOf(examples).filter((w) => !isStopword(w));
  const kind = EXAMPLE_KINDS.find((words) => given.length > 0 && given.every((w) => words.has(w) || w === 'or'));
  if (kind === undefined) return;
  const at = ctx.tokens.findIndex(
    (token, i) => token.kind === 'word' && kind.has(token.norm) && !ctx.used[i] && (ctx.owners[i] ?? []).every((owner) => owner === field.name),
  );
  if (at >= 0) take(ctx, field, text.slice(ctx.tokens[at]?.start ?? 0, ctx.tokens[at]?.end ?? 0), at);
}

const EXAMPLE_KINDS = [CUISINES, COLORS];

function readAfterColon(ctx: Context, field: FieldProfile, text: string): void {
  const t = ctx.tokens;
  for (let c = 0; c < t.length; c++) {
    if (t[c]?.norm !== ':' || ctx.mentions.some((m) => m.end === c - 1)) continue;
    let end = c;
    for (let k = c + 1; k < t.length && t[k]?.sentence === t[c + 1]?.sentence && !ctx.used[k]; k++) if (t[k]?.kind !== 'punct') end = k;
    if (end === c || t.slice(c + 1, end + 1).some((_, k) => ctx.used[c + 1 + k])) continue;
    // The text runs to the end of its sentence; free text keeps the mark that ends it.
    const last = field.kind === 'freeText' && ['.', '!', '?'].includes(t[end + 1]?.norm ?? '') ? t[end + 1] : t[end];
    take(ctx, field, text.slice(t[c + 1]?.start ?? 0, last?.end ?? 0), c + 1, end);
    return;
  }
}

/**
 * "a piece on 'why we sleep'" -> "why we sleep": a quoted string after "about" or "on".
 * "an article about the history of print, ..." -> "the history of print": the first "about" not
 * followed by a number ("about 600 words"), up to the end of the clause, a word another rule took
 * or a mention of another field, without trailing small words.
 */
function readAbout(ctx: Context, field: FieldProfile, text: string): void {
  const t = ctx.tokens;
  for (let a = 0; a < t.length; a++) {
    const start = a + 1;
    if ((t[a]?.norm === 'about' || t[a]?.norm === 'on') && t[start]?.kind === 'quote' && !ctx.used[start]) {
      take(ctx, field, t[start]?.norm ?? '', start);
      return;
    }
    if (t[a]?.norm !== 'about' || ctx.used[a] || t[start]?.kind === 'number' || t[start]?.kind === 'punct' || t[start] === undefined) continue;
    let end = start - 1;
    for (let k = start; k < Math.min(t.length, start + MAX_TOPIC_WORDS); k++) {
      const token = t[k];
      if (token === undefined || token.clause !== t[start]?.clause || token.kind === 'punct' || ctx.used[k]) break;
      if ((ctx.owners[k] ?? []).some((owner) => owner !== field.name)) break;
      end = k;
    }
    while (end >= start && t[end]?.kind === 'word' && isStopword(t[end]?.norm ?? '')) end--;
    if (end < start) continue;
    take(ctx, field, text.slice(t[start]?.start ?? 0, t[end]?.end ?? 0), start, end);
    return;
  }
}
