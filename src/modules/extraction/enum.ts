import type { FieldProfile } from './fields.ts';
import { CURRENCIES, LANGUAGES, OPTION_PHRASES } from './lexicon.ts';
import { editDistance, tokenize, type Token } from './text.ts';
import { isStopword } from '../../lib/words.ts';
import { OPTION_REJECTORS, synonymsOf } from './words.ts';

/** How an option was found in the text: its own words, a synonym, or a near spelling. */
export type Tier = 3 | 2 | 1;

export interface OptionHit {
  value: string | number | boolean;
  start: number;
  end: number;
  tier: Tier;
}

// Inflections that keep an option's meaning: "formally" is formal, "shorter" is short; "shortcut" is not.
const INFLECTIONS = new Set(['s', 'es', 'ly', 'ally', 'er', 'est', 'ed', 'ing', 'ness', 'ity', 'ize', 'ise', 'ized', 'ised', 'y', 'ish', 'ic', 'al']);

interface OptionIndex {
  /** Options by their first key. */
  byFirst: Map<string, FieldProfile['options']>;
  /** One-word options by the words that stand for them. */
  bySynonym: Map<string, FieldProfile['options']>;
  /** One-word options, for near spellings. */
  single: FieldProfile['options'];
  /** Phrases that stand for an option ("money no object" for high, "Spanish" for es), by their first key. */
  byPhrase: Map<string, { keys: string[]; option: FieldProfile['options'][number] }[]>;
}

const keysByPhrase = new Map<string, string[]>();
/** A lexicon phrase as token keys, computed once per phrase. */
export function phraseKeys(phrase: string): string[] {
  let keys = keysByPhrase.get(phrase);
  if (keys === undefined) {
    keys = tokenize(phrase).map((t) => t.key);
    keysByPhrase.set(phrase, keys);
  }
  return keys;
}

/** The phrases that stand for an option: the lexicon's for its words, language names for a language code, currency words for a currency code. */
function phrasesFor(value: string | number | boolean): string[] {
  if (typeof value !== 'string') return [];
  const v = value.toLowerCase();
  return [...(OPTION_PHRASES[v] ?? []), ...(LANGUAGES[v] ?? []), ...(CURRENCIES[v]?.words ?? [])];
}

const indexes = new WeakMap<FieldProfile, OptionIndex>();

function indexOf(field: FieldProfile): OptionIndex {
  let index = indexes.get(field);
  if (index !== undefined) return index;
  index = { byFirst: new Map(), bySynonym: new Map(), single: [], byPhrase: new Map() };
  for (const option of field.options) {
    const [first] = option.keys;
    if (first === undefined) continue;
    for (const phrase of phrasesFor(option.value)) {
      const keys = phraseKeys(phrase);
      const head = keys[0];
      // A phrase that is another option's own name stays that option's ("formal" when both formal and professional are options).
      if (head === undefined || field.options.some((o) => o !== option && o.keys.join(' ') === keys.join(' '))) continue;
      index.byPhrase.set(head, [...(index.byPhrase.get(head) ?? []), { keys, option }]);
    }
    index.byFirst.set(first, [...(index.byFirst.get(first) ?? []), option]);
    if (option.keys.length !== 1) continue;
    index.single.push(option);
    for (const word of synonymsOf(first)) index.bySynonym.set(word, [...(index.bySynonym.get(word) ?? []), option]);
  }
  indexes.set(field, index);
  return index;
}

/**
 * Each option of an enum field found among the tokens `usable` allows, best tier only: if any
 * option is named outright, synonyms and near spellings are not considered.
 */
export function findOptions(
  field: FieldProfile,
  tokens: Token[],
  usable: (index: number) => boolean,
  from = 0,
  to = tokens.length,
  otherField: (index: number) => boolean = () => false,
): OptionHit[] {
  const rejected = (tokens: Token[], at: number) => rejectedAt(tokens, at, otherField);
  const index = indexOf(field);
  const exact: OptionHit[] = [];
  const loose: OptionHit[] = [];
  const looseByWord = new Map<string, { value: OptionHit['value']; tier: Tier }[]>();
  for (let i = from; i < to; i++) {
    const token = tokens[i];
    if (token === undefined || !usable(i)) continue;
    for (const option of index.byFirst.get(token.key) ?? []) {
      const n = option.keys.length;
      const whole = i + n <= to && option.keys.every((key, k) => tokens[i + k]?.key === key && usable(i + k) && tokens[i + k]?.sentence === token.sentence);
      if (whole && !rejected(tokens, i)) exact.push({ value: option.value, start: i, end: i + n - 1, tier: 3 });
    }
    if (exact.length > 0 || token.kind !== 'word') continue;
    for (const { keys, option } of index.byPhrase.get(token.key) ?? []) {
      const whole = i + keys.length <= to && keys.every((key, k) => tokens[i + k]?.key === key && usable(i + k) && tokens[i + k]?.sentence === token.sentence);
      if (whole && !rejected(tokens, i)) loose.push({ value: option.value, start: i, end: i + keys.length - 1, tier: 2 });
    }
    if (isStopword(token.norm)) continue;
    let matches = looseByWord.get(token.key);
    if (matches === undefined) {
      matches = looseMatches(index, token.key);
      looseByWord.set(token.key, matches);
    }
    if (matches.length > 0 && !rejected(tokens, i)) for (const m of matches) loose.push({ value: m.value, start: i, end: i, tier: m.tier });
  }
  return exact.length > 0 ? exact : loose;
}

function looseMatches(index: OptionIndex, word: string): { value: OptionHit['value']; tier: Tier }[] {
  const synonyms = index.bySynonym.get(word) ?? [];
  const near = index.single.filter((option) => !synonyms.includes(option) && option.keys[0] !== word && nearSpelling(word, option.keys[0] ?? ''));
  return [...synonyms.map((o) => ({ value: o.value, tier: 2 as const })), ...near.map((o) => ({ value: o.value, tier: 1 as const }))];
}

/** A rejector within 3 words before, in the same clause, and not about another field in between ("no pets, high end"). */
function rejectedAt(tokens: Token[], at: number, otherField: (index: number) => boolean): boolean {
  const clause = tokens[at]?.clause;
  for (let k = at - 1; k >= Math.max(0, at - 3); k--) {
    const token = tokens[k];
    if (token === undefined || token.clause !== clause || otherField(k)) return false;
    if (OPTION_REJECTORS.has(token.norm)) return true;
  }
  return false;
}

function nearSpelling(word: string, option: string): boolean {
  if (word.length < 4 || option.length < 4 || word[0] !== option[0]) return false;
  const [shorter, longer] = word.length <= option.length ? [word, option] : [option, word];
  if (longer.startsWith(shorter) && INFLECTIONS.has(longer.slice(shorter.length))) return true;
  // One slip in six letters, two in ten, never in the first letter (checked above): "fromal" is formal, "shirt" is not short.
  const allowed = longer.length >= 10 ? 2 : longer.length >= 6 ? 1 : 0;
  if (allowed === 0 || longer.length - shorter.length > allowed) return false;
  return editDistance(word, option) <= allowed;
}

/** The closest option to a number: equal, else nearest (the smaller on a tie). */
export function nearestNumber(options: FieldProfile['options'], value: number): number | undefined {
  let best: number | undefined;
  for (const option of options) {
    if (typeof option.value !== 'number') continue;
    const d = Math.abs(option.value - value);
    if (best === undefined || d < Math.abs(best - value) || (d === Math.abs(best - value) && option.value < best)) best = option.value;
  }
  return best;
}
