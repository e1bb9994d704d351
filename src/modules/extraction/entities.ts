import { isOpen, take, type Context } from './context.ts';
import type { FieldProfile } from './fields.ts';
import { COLORS, COLOR_SHADES, CURRENCIES, LANGUAGE_NAMES, MONTHS, OPTION_PHRASES, PLACES, RELATIVE_DAYS, WEEKDAYS } from './lexicon.ts';
import type { Token } from './text.ts';
import { isStopword } from '../../lib/words.ts';

/**
 * Named things for string fields whose name or description says what they hold (see
 * FieldProfile.role): colours, dates, times, places and people, each taken as written in the
 * request. A field only takes the kind of thing its role names; nothing is taken on a guess.
 */
export function readEntities(ctx: Context, text: string): void {
  const open = (role: FieldProfile['role']) => ctx.fields.filter((f) => f.kind === 'string' && f.role === role && isOpen(ctx, f));
  const blocked = blockedWords(ctx);
  // Fields of one role share the text's spans (found once); each takes the best one still free.
  const once = new Map<string, Span[]>();
  const spans = (key: string, find: () => Span[]) => {
    let found = once.get(key);
    if (found === undefined) once.set(key, (found = find()));
    return found;
  };
  for (const field of open('color')) takeFirst(ctx, field, text, colorSpans(ctx, field));
  for (const field of open('date'))
    takeFirst(
      ctx,
      field,
      text,
      spans('date', () => dateSpans(ctx)),
    );
  for (const field of open('time'))
    takeFirst(
      ctx,
      field,
      text,
      spans('time', () => timeSpans(ctx)),
    );
  for (const field of open('place'))
    takeFirst(
      ctx,
      field,
      text,
      spans(`place ${field.preposition}`, () => placeSpans(ctx, text, blocked, field.preposition)),
    );
  for (const field of open('person'))
    takeFirst(
      ctx,
      field,
      text,
      spans(`person ${takesEmail(field)}`, () => personSpans(ctx, text, blocked, field)),
    );
}

interface Span {
  start: number;
  end: number;
  score: number;
}

function takeFirst(ctx: Context, field: FieldProfile, text: string, spans: Span[]): void {
  const free = spans.filter((s) => ctx.used.slice(s.start, s.end + 1).every((u) => !u));
  const best = free.sort((a, b) => b.score - a.score || a.start - b.start)[0];
  if (best === undefined) return;
  take(ctx, field, text.slice(ctx.tokens[best.start]?.start ?? 0, ctx.tokens[best.end]?.end ?? 0), best.start, best.end);
}

const blockedByFields = new WeakMap<FieldProfile[], Set<string>>();

/** Words that are something else: enum options and the words that stand for them, languages, currencies, days and months. */
function blockedWords(ctx: Context): Set<string> {
  const cached = blockedByFields.get(ctx.fields);
  if (cached !== undefined) return cached;
  const words = new Set<string>([...LANGUAGE_NAMES, ...WEEKDAYS, ...MONTHS, ...RELATIVE_DAYS]);
  for (const field of ctx.fields) {
    for (const option of field.options) {
      for (const key of option.keys) words.add(key);
      const value = String(option.value).toLowerCase();
      for (const phrase of [...(OPTION_PHRASES[value] ?? []), ...(CURRENCIES[value]?.words ?? [])]) for (const w of phrase.split(' ')) words.add(w);
    }
  }
  blockedByFields.set(ctx.fields, words);
  return words;
}

const free = (ctx: Context, i: number) => ctx.tokens[i] !== undefined && !ctx.used[i] && (ctx.owners[i]?.length ?? 0) === 0;

function colorSpans(ctx: Context, field: FieldProfile): Span[] {
  const t = ctx.tokens;
  const spans: Span[] = [];
  // The field's own description may name colours ("e.g. white or #ffffff"): those words are still colours.
  const free = (c: Context, i: number) => c.tokens[i] !== undefined && !c.used[i] && (c.owners[i] ?? []).every((owner) => owner === field.name);
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (!free(ctx, i) || token.kind !== 'word') continue;
    if (/^#[0-9a-f]{3,6}$/.test(token.norm)) spans.push({ start: i, end: i, score: 2 });
    else if (COLORS.has(token.norm)) {
      const shaded = i > 0 && COLOR_SHADES.has(t[i - 1]?.norm ?? '') && free(ctx, i - 1) && t[i - 1]?.clause === token.clause;
      // "navy blue", "blue green": two colour words are one colour.
      const end = COLORS.has(t[i + 1]?.norm ?? '') && free(ctx, i + 1) && t[i + 1]?.clause === token.clause ? i + 1 : i;
      spans.push({ start: shaded ? i - 1 : i, end, score: 1 });
      i = end;
    }
  }
  return spans;
}

const ORDINAL_DAY = /^(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const dayNumber = (token: Token | undefined) =>
  token !== undefined &&
  ((token.kind === 'number' && !token.spelled && Number.isInteger(token.value) && (token.value ?? 0) >= 1 && (token.value ?? 0) <= 31) ||
    ORDINAL_DAY.test(token.norm));

function dateSpans(ctx: Context): Span[] {
  const t = ctx.tokens;
  const spans: Span[] = [];
  const month = (i: number) => t[i]?.kind === 'word' && MONTHS.has(t[i]?.norm ?? '') && free(ctx, i);
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (!free(ctx, i) && !ISO_DATE.test(token.norm)) continue;
    if (ctx.used[i]) continue;
    const norm = token.norm;
    if (token.kind === 'word' && (ISO_DATE.test(norm) || /^\d{1,2}\/\d{1,2}(?:\/\d{2,4})?$/.test(norm))) spans.push({ start: i, end: i, score: 3 });
    else if (token.kind === 'word' && RELATIVE_DAYS.has(norm) && norm !== 'weekend') spans.push({ start: i, end: i, score: 2 });
    else if (token.kind === 'word' && (WEEKDAYS.has(norm) || (norm.endsWith('s') && WEEKDAYS.has(norm.slice(0, -1))))) {
      const modified = i > 0 && ['next', 'this', 'coming'].includes(t[i - 1]?.norm ?? '') && t[i - 1]?.clause === token.clause;
      spans.push({ start: modified ? i - 1 : i, end: i, score: 2 });
    } else if (dayNumber(token)) {
      if (month(i + 1)) spans.push({ start: i, end: i + 1, score: 3 });
      else if (t[i + 1]?.norm === 'of' && month(i + 2)) spans.push({ start: i, end: i + 2, score: 3 });
    } else if (month(i) && dayNumber(t[i + 1]) && !ctx.used[i + 1]) spans.push({ start: i, end: i + 1, score: 3 });
  }
  return spans;
}

const CLOCK = /^(?:[01]?\d|2[0-3])(?::[0-5]\d)?(?::[0-5]\d)?\s?(?:[ap]\.?m\.?)?$/;

function timeSpans(ctx: Context): Span[] {
  const t = ctx.tokens;
  const spans: Span[] = [];
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (!free(ctx, i)) continue;
    if (token.kind === 'word' && CLOCK.test(token.norm) && (/[ap]\.?m/.test(token.norm) || token.norm.includes(':')))
      spans.push({ start: i, end: i, score: 3 });
    else if (token.kind === 'word' && ['noon', 'midnight', 'midday'].includes(token.norm)) spans.push({ start: i, end: i, score: 2 });
    else if (
      token.kind === 'number' &&
      !token.spelled &&
      token.unit === '' &&
      t[i - 1]?.norm === 'at' &&
      Number.isInteger(token.value) &&
      (token.value ?? -1) >= 0 &&
      (token.value ?? 99) <= 23
    ) {
      // "at 10", not "at 10 minutes" or "at 10%".
      const next = t[i + 1];
      if (next === undefined || next.kind === 'punct' || isStopword(next.norm) || (next.kind === 'word' && !/^[a-z]/.test(next.norm)))
        spans.push({ start: i, end: i, score: 1 });
    }
  }
  return spans;
}

const PLACE_PREPOSITIONS = new Set(['in', 'to', 'for', 'at', 'near', 'around', 'from', 'destination', 'into', 'of']);
const capitalized = (text: string, token: Token | undefined) => token?.kind === 'word' && /^\p{Lu}/u.test(text.slice(token.start, token.end));
const sentenceStart = (ctx: Context, i: number) => {
  const previous = ctx.tokens[i - 1];
  return previous === undefined || previous.sentence !== ctx.tokens[i]?.sentence;
};

/**
 * Places: a known country or city in any case ("ship it to spain"), or capitalised words after a
 * preposition ("a hotel in Porto", "forecast for Austin TX") or standing alone in a list
 * ("Weather, Nairobi, a week"), never the first word of a sentence unless it is a known place.
 */
function placeSpans(ctx: Context, text: string, blocked: Set<string>, preposition: string | null): Span[] {
  const t = ctx.tokens;
  const spans: Span[] = [];
  for (let i = 0; i < t.length; i++) {
    if (!free(ctx, i) || t[i]?.kind !== 'word') continue;
    let known = -1;
    for (let n = 3; n >= 1 && known < 0; n--) {
      const words = t.slice(i, i + n);
      if (
        words.length === n &&
        words.every((w, k) => w.kind === 'word' && free(ctx, i + k) && w.sentence === t[i]?.sentence) &&
        PLACES.has(words.map((w) => w.norm).join(' '))
      )
        known = i + n - 1;
    }
    const before = t[i - 1]?.norm === 'the' ? t[i - 2] : t[i - 1];
    const afterPreposition = before !== undefined && before.clause === t[i]?.clause && PLACE_PREPOSITIONS.has(before.norm);
    const bonus = afterPreposition && before?.norm === preposition ? 1 : 0;
    if (known >= 0) {
      // A region or country code after a city belongs to it ("Wellington NZ", "Austin TX"), as does a capitalised word ("New York City").
      while (capitalized(text, t[known + 1]) && free(ctx, known + 1) && !blocked.has(t[known + 1]?.norm ?? '') && t[known + 1]?.clause === t[known]?.clause)
        known++;
      spans.push({ start: i, end: known, score: 3 + bonus });
      i = known;
      continue;
    }
    if (!capitalized(text, t[i]) || sentenceStart(ctx, i) || blocked.has(t[i]?.norm ?? '') || isStopword(t[i]?.norm ?? '')) continue;
    let end = i;
    while (capitalized(text, t[end + 1]) && free(ctx, end + 1) && !blocked.has(t[end + 1]?.norm ?? '') && t[end + 1]?.clause === t[i]?.clause) end++;
    const next = t[end + 1];
    const alone = (before === undefined || before.kind === 'punct') && (next === undefined || next.kind === 'punct');
    if (afterPreposition || alone) spans.push({ start: i, end, score: 2 + bonus });
    i = end;
  }
  return spans;
}

const takesEmail = (field: FieldProfile) => /e-?mail/i.test(field.definition.description ?? '');

const TITLES = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'prof', 'sir', 'dame']);
const PERSON_CUES = new Set([
  'with',
  'w',
  'to',
  'for',
  'from',
  'invoice',
  'bill',
  'charge',
  'send',
  'meet',
  'meeting',
  'invite',
  'call',
  'ping',
  'cc',
  'and',
  'mentor',
  'client',
  'customer',
  'colleague',
  'boss',
  'manager',
  'friend',
  'attendee',
  'name',
  'named',
  'called',
]);
const PHRASE_STOPS = new Set([
  'at',
  'on',
  'in',
  'every',
  'each',
  'for',
  'about',
  'to',
  'from',
  'tomorrow',
  'today',
  'tonight',
  'next',
  'this',
  'starting',
  'from',
  'by',
  'via',
  'over',
  'regarding',
  're',
]);

/**
 * People and organisations: an email address when the field's description speaks of one, then
 * capitalised names ("Dr. Maria Lopez", "Northwind GmbH", "my mentor Ahmed"), then the words
 * after "with" ("with the backend team at 9:15").
 */
function personSpans(ctx: Context, text: string, blocked: Set<string>, field: FieldProfile): Span[] {
  const t = ctx.tokens;
  const spans: Span[] = [];
  const email = takesEmail(field);
  const usable = (i: number) =>
    free(ctx, i) && !blocked.has(t[i]?.norm ?? '') && !PLACES.has(t[i]?.norm ?? '') && !isStopword(t[i]?.norm ?? '') && (t[i]?.norm.length ?? 0) > 1;
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (email && token.kind === 'email' && !ctx.used[i]) spans.push({ start: i, end: i, score: 4 });
    if (!capitalized(text, token) || !free(ctx, i)) continue;
    const titled = TITLES.has(token.norm);
    if (!titled && (sentenceStart(ctx, i) || !usable(i))) continue;
    let end = i;
    if (titled && t[end + 1]?.norm === '.') end++;
    while (capitalized(text, t[end + 1]) && usable(end + 1) && t[end + 1]?.clause === token.clause) end++;
    if (titled && end <= i + 1 && !capitalized(text, t[end])) continue;
    if (titled && end === i + 1 && t[end]?.norm === '.') continue;
    // A capitalised word alone may be anything ("the 2024 Olympics"); a name follows a word that
    // introduces one, perhaps through "the" or a colon ("bill the Smiths", "Invoice to: Wayne Enterprises").
    let cue = i - 1;
    if (t[cue]?.norm === 'the' || t[cue]?.norm === ':') cue--;
    if (titled || PERSON_CUES.has(t[cue]?.norm ?? '')) spans.push({ start: i, end, score: 2 });
    i = end;
  }
  if (spans.length > 0) return spans;
  for (let i = 0; i < t.length; i++) {
    if (t[i]?.norm !== 'with' && !(t[i]?.norm === 'w' && text[t[i]?.end ?? 0] === '/')) continue;
    let end = i;
    for (let k = i + 1; k < Math.min(t.length, i + 6); k++) {
      const token = t[k] as Token;
      if (token.kind !== 'word' || !free(ctx, k) || token.clause !== t[i]?.clause || PHRASE_STOPS.has(token.norm) || blocked.has(token.norm)) break;
      end = k;
    }
    while (end > i && isStopword(t[end]?.norm ?? '')) end--;
    if (end > i) spans.push({ start: i + 1, end, score: 1 });
  }
  return spans;
}
