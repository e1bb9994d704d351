import type { InputFieldDefinition, InputSchema } from '../registry/index.ts';
import { identifierWords, isStopword, pluralStem, wordsOf } from '../../lib/words.ts';
import { tokenize, type Token } from './text.ts';
import { phraseKeys } from './enum.ts';
import { BOOLEAN_WORDS } from './lexicon.ts';

/**
 * How the rules treat a field: `image` and `link` are strings that take URLs, `email` one that
 * takes an email address, `freeText` one whose name says it holds the request itself (text,
 * prompt, query...), `string` any other string.
 */
export type FieldKind = 'number' | 'boolean' | 'enum' | 'image' | 'link' | 'email' | 'freeText' | 'string';

/** Ways a text refers to a field, strongest first: its whole name, one word of it, a word of its description. */
export type Strength = 3 | 2 | 1;

export interface FieldProfile {
  name: string;
  definition: InputFieldDefinition;
  kind: FieldKind;
  /** `inverted`: a word for the opposite of a boolean field ("lenient" for strict). */
  phrases: { keys: string[]; strength: Strength; inverted?: boolean }[];
  /** A string field for what the task is about (topic, subject, theme): "an article about X" fills it. */
  about: boolean;
  /** Token keys of each enum option, in schema order. */
  options: { value: string | number | boolean; keys: string[] }[];
  /** What kind of thing a plain string or number field holds, read from its name and description. */
  role: Role | null;
  /** The unit a number field counts in, when its name or description says one. */
  unit: FieldUnit | null;
  /**
   * The preposition a description ends with ("Ingredients to cook with", "What the invoice is
   * for"): in a request the value follows it ("with rice and eggs", "for hosting").
   */
  preposition: string | null;
}

/** place: a city or country; person: who; date, time: when; color; money: an amount of money; title: a name for the thing made. */
export type Role = 'place' | 'person' | 'date' | 'time' | 'color' | 'money' | 'title';

/** A number field's unit: its dimension and how many base units (minutes, kilograms, ...) one of it is. */
export interface FieldUnit {
  dimension: 'time' | 'mass' | 'pixels' | 'characters' | 'words' | 'people';
  scale: number;
}

export interface Mention {
  field: string;
  /** First and last token index. */
  start: number;
  end: number;
  strength: Strength;
  inverted?: boolean;
}

const IMAGE_WORDS = new Set(['image', 'img', 'photo', 'picture', 'pic', 'avatar', 'logo', 'icon', 'thumbnail', 'screenshot']);
// How people refer to an image field's value whatever the field is called.
const IMAGE_SYNONYMS = ['image', 'img', 'photo', 'picture', 'pic', 'screenshot'];
const LINK_WORDS = new Set(['url', 'uri', 'link', 'website', 'site', 'homepage', 'href', 'webpage']);
const ABOUT_WORDS = new Set(['topic', 'subject', 'theme']);
const FREE_TEXT_WORDS = new Set([
  'text',
  'prompt',
  'query',
  'question',
  'description',
  'content',
  'message',
  'instruction',
  'task',
  'request',
  'body',
  'snippet',
  'diff',
  'patch',
  'passage',
  'sentence',
]);
// Code to work on is free text ("code", "source_code", "code_snippet"), a code that names something is not ("postal_code", "country_code").
const CODE_NAME_WORDS = new Set(['code', 'source', 'snippet', 'script']);
// Name words too vague to point at one field on their own ("max" of max_words, "is" of is_public).
const GENERIC = new Set(
  'num number no count amount total value val max min maximum minimum is has have use enable include should allow do with id the of per in to type kind mode data field input output option setting flag'.split(
    ' ',
  ),
);
// Leading verbs of boolean names: "include_sources" is mentioned as "sources", and the verb is a cue in the text.
const BOOLEAN_PREFIXES = new Set('is has have include enable use with show add allow should do want need can apply'.split(' '));

export function profileFields(schema: InputSchema): FieldProfile[] {
  const entries = Object.entries(schema);
  const nameWords = entries.map(([name]) => identifierWords(name).map(pluralStem));
  const descriptionWords = entries.map(([, d]) => contentKeys(d.description ?? ''));
  const optionWords = new Set(entries.flatMap(([, d]) => (d.enum ?? []).flatMap((v) => tokenize(String(v)).map((t) => t.key))));
  const count = (words: string[][]) => {
    const seen = new Map<string, number>();
    for (const list of words) for (const w of new Set(list)) seen.set(w, (seen.get(w) ?? 0) + 1);
    return seen;
  };
  const nameCount = count(nameWords);
  const anyCount = count(entries.map((_, i) => [...(nameWords[i] ?? []), ...(descriptionWords[i] ?? [])]));

  return entries.map(([name, definition], i) => {
    const words = nameWords[i] ?? [];
    const kind = kindOf(definition, words, descriptionWords[i] ?? []);
    const phrases: FieldProfile['phrases'] = [];
    let subject = words;
    if (kind === 'boolean') {
      while (subject.length > 1 && BOOLEAN_PREFIXES.has(subject[0] ?? '')) subject = subject.slice(1);
    }
    phrases.push({ keys: subject, strength: 3 });
    for (const word of words) {
      if (words.length > 1 && word.length > 2 && !GENERIC.has(word) && !isStopword(word) && nameCount.get(word) === 1 && !BOOLEAN_PREFIXES.has(word)) {
        phrases.push({ keys: [word], strength: 2 });
      }
    }
    for (const word of new Set(descriptionWords[i])) {
      if (!words.includes(word) && anyCount.get(word) === 1 && !optionWords.has(word)) phrases.push({ keys: [word], strength: 1 });
    }
    if (kind === 'boolean') {
      // Words for what the setting is about count as its name ("bringing the cat" for pets); words for its opposite as its name negated.
      for (const word of words) {
        const known = BOOLEAN_WORDS[word];
        if (known === undefined) continue;
        for (const phrase of known.same) phrases.push({ keys: phraseKeys(phrase), strength: 3 });
        for (const phrase of known.opposite) phrases.push({ keys: phraseKeys(phrase), strength: 3, inverted: true });
      }
    }
    if (kind === 'number') {
      // A size is said by its adjective: "1000 px wide", "64px tall".
      for (const [word, adjective] of SIZE_ADJECTIVES) if (words.includes(word)) phrases.push({ keys: [adjective], strength: 2 });
    }
    if (kind === 'image') {
      for (const word of IMAGE_SYNONYMS) if (!words.includes(word) && anyCount.get(word) === undefined) phrases.push({ keys: [word], strength: 1 });
    }
    const options = (definition.enum ?? []).map((value) => ({ value, keys: tokenize(String(value)).map((t) => t.key) }));
    const about = kind === 'string' && [...words, ...(descriptionWords[i] ?? [])].some((w) => ABOUT_WORDS.has(w));
    const described = tokenize(definition.description ?? '')
      .filter((t) => t.kind === 'word')
      .map((t) => t.key);
    return {
      name,
      definition,
      kind,
      phrases,
      about,
      options,
      role: roleOf(kind, words, described),
      unit: unitOf(kind, words, described),
      preposition: prepositionOf(definition.description),
    };
  });
}

const SIZE_ADJECTIVES: [string, string][] = [
  ['width', 'wide'],
  ['height', 'tall'],
  ['depth', 'deep'],
];

// Words of a field's name or description that say what it holds.
const ROLE_WORDS: [Role, string[]][] = [
  // A background is named by its colour ("on a transparent background", "dark blue background").
  ['color', ['color', 'colour', 'background', 'backdrop']],
  ['date', ['date', 'day', 'checkin', 'checkout']],
  ['time', ['time', 'hour', 'clock']],
  ['place', ['city', 'place', 'location', 'destination', 'country', 'town', 'where']],
  ['person', ['attendee', 'client', 'customer', 'recipient', 'person', 'who', 'guest', 'invitee', 'participant', 'contact']],
  ['title', ['title', 'heading', 'caption', 'headline']],
];
const MONEY_WORDS = new Set(['amount', 'price', 'cost', 'total', 'fee', 'value', 'budget', 'sum', 'charge', 'pay', 'payment', 'bill', 'salary', 'money']);
const UNIT_WORDS: [string[], FieldUnit][] = [
  [['minute', 'min', 'mins'], { dimension: 'time', scale: 1 }],
  [['hour', 'hr', 'hrs'], { dimension: 'time', scale: 60 }],
  [['day', 'night'], { dimension: 'time', scale: 1440 }],
  [['week'], { dimension: 'time', scale: 10080 }],
  [['kg', 'kilogram', 'kilo'], { dimension: 'mass', scale: 1 }],
  [['gram', 'g'], { dimension: 'mass', scale: 0.001 }],
  [['pixel', 'px'], { dimension: 'pixels', scale: 1 }],
  [['character', 'char'], { dimension: 'characters', scale: 1 }],
  [['word'], { dimension: 'words', scale: 1 }],
  [['people', 'person', 'guest', 'serving', 'persons'], { dimension: 'people', scale: 1 }],
];
const PREPOSITIONS = new Set(['to', 'into', 'for', 'with', 'about', 'on', 'from']);

function roleOf(kind: FieldKind, nameWords: string[], described: string[]): Role | null {
  if (kind === 'number') return nameWords.some((w) => MONEY_WORDS.has(w)) || described.some((w) => MONEY_WORDS.has(w) && w !== 'value') ? 'money' : null;
  if (kind !== 'string') return null;
  // The name says it first; a description only when the name says nothing ("Name or email of the person to meet").
  for (const words of [nameWords, described]) {
    for (const [role, keys] of ROLE_WORDS) if (words.some((w) => keys.includes(w))) return role;
    if (words.includes('check') && words.includes('in')) return 'date';
  }
  return null;
}

function unitOf(kind: FieldKind, nameWords: string[], described: string[]): FieldUnit | null {
  if (kind !== 'number') return null;
  for (const words of [nameWords, described]) for (const [keys, unit] of UNIT_WORDS) if (words.some((w) => keys.includes(w))) return unit;
  return null;
}

function prepositionOf(description: string | undefined): string | null {
  const words = wordsOf((description ?? '').replace(/\([^)]*\)/g, ' '));
  const last = words[words.length - 1];
  return last !== undefined && PREPOSITIONS.has(last) && words.length > 1 ? last : null;
}

function contentKeys(text: string): string[] {
  return tokenize(text)
    .filter((t) => t.kind === 'word' && t.norm.length > 3 && !isStopword(t.norm) && !GENERIC.has(t.key))
    .map((t) => t.key);
}

function kindOf(definition: InputFieldDefinition, nameWords: string[], descriptionWords: string[]): FieldKind {
  if (definition.type === 'number') return 'number';
  if (definition.type === 'boolean') return 'boolean';
  if (definition.enum !== undefined) return 'enum';
  // As the dashboard does, a name with "image" in it asks for an image URL; a description only
  // does when it also says URL or link ("Text to print on the image" is no URL).
  const all = [...nameWords, ...descriptionWords];
  if (nameWords.some((w) => IMAGE_WORDS.has(w))) return 'image';
  if (nameWords.some((w) => w === 'email' || w === 'mail') || (descriptionWords.includes('email') && descriptionWords.includes('address'))) return 'email';
  if (all.some((w) => LINK_WORDS.has(w))) return all.some((w) => IMAGE_WORDS.has(w)) ? 'image' : 'link';
  if (nameWords.some((w) => FREE_TEXT_WORDS.has(w))) return 'freeText';
  if (nameWords.every((w) => CODE_NAME_WORDS.has(w)) && nameWords.some((w) => w === 'code' || w === 'script')) return 'freeText';
  return 'string';
}

/**
 * Every place the text names a field, left to right, without overlaps: at each word the longest
 * phrase wins, then the strongest; fields tied on both are all mentioned there.
 */
export function findMentions(tokens: Token[], fields: FieldProfile[]): Mention[] {
  // Phrases by the word they start with (and its participle), so each token looks at a handful.
  type Entry = { field: string; keys: string[]; strength: Strength; inverted?: boolean };
  const byFirst = new Map<string, Entry[]>();
  const index = (word: string, entry: Entry) => byFirst.set(word, [...(byFirst.get(word) ?? []), entry]);
  for (const field of fields) {
    for (const { keys, strength, inverted } of field.phrases) {
      const first = keys[0];
      if (first === undefined) continue;
      index(first, { field: field.name, keys, strength, inverted });
      if (strength === 3 && keys.length === 1 && !inverted)
        for (const participle of [`${first}d`, `${first}ed`]) index(participle, { field: field.name, keys, strength });
    }
  }
  const mentions: Mention[] = [];
  let i = 0;
  while (i < tokens.length) {
    let best: Mention[] = [];
    for (const phrase of byFirst.get(tokens[i]?.key ?? '') ?? []) {
      if (!matchesAt(tokens, i, phrase.keys, phrase.strength === 3)) continue;
      const candidate: Mention = {
        field: phrase.field,
        start: i,
        end: i + phrase.keys.length - 1,
        strength: phrase.strength,
        ...(phrase.inverted ? { inverted: true } : {}),
      };
      const top = best[0];
      if (top === undefined || candidate.end > top.end || (candidate.end === top.end && candidate.strength > top.strength)) best = [candidate];
      else if (candidate.end === top.end && candidate.strength === top.strength && !best.some((m) => m.field === phrase.field)) best.push(candidate);
    }
    mentions.push(...best);
    i = (best[0]?.end ?? i) + 1;
  }
  return mentions;
}

/**
 * Whether the words from `at` are `keys` (within one sentence). A one-word name also matches as a
 * past participle, so "titled" mentions `title` and "named" mentions `name`.
 */
function matchesAt(tokens: Token[], at: number, keys: string[], participle: boolean): boolean {
  const first = tokens[at];
  if (keys.length === 0 || first === undefined) return false;
  if (participle && keys.length === 1 && first.kind === 'word' && (first.key === `${keys[0]}d` || first.key === `${keys[0]}ed`)) return true;
  for (let k = 0; k < keys.length; k++) {
    const token = tokens[at + k];
    if (token === undefined || token.kind !== 'word' || token.key !== keys[k] || token.sentence !== first.sentence) return false;
  }
  return true;
}
