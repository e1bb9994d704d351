/**
 * The one way the service cuts English text into words and compares them: search (discovery),
 * task-input extraction (tasks) and topic inference (social) fold, split, drop stopwords and stem
 * with these functions, so a word means the same thing in all three.
 */

/** Lowercase, accents removed, the typographic apostrophe made straight: "Café’s" -> "cafe's". */
export function foldText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\u2019/g, "'");
}

// Compounds keep their joiners ("c++", "c#", "low-code", "ci/cd", "node.js") for callers whose
// vocabulary is written that way; their parts are separate words in the plain split.
const WORD = /[\p{L}\p{N}]+/gu;
const COMPOUND = /[\p{L}\p{N}]+(?:[+#]+|(?:[-/'.][\p{L}\p{N}]+)*)/gu;

/**
 * All words of a text, in order, folded, possessive "'s" dropped, split at anything that is not a
 * letter or digit: "Brand's e-mail" -> ["brand", "e", "mail"]. With `compounds`, words joined by
 * - / ' . stay one, as do "c++" and "c#": "low-code" -> ["low-code"].
 */
export function wordsOf(text: string, { compounds = false }: { compounds?: boolean } = {}): string[] {
  return (
    foldText(text)
      .replace(/'s\b/g, '')
      .match(compounds ? COMPOUND : WORD) ?? []
  );
}

/** Words of an identifier or option: snake_case, kebab-case and camelCase split, folded. */
export function identifierWords(name: string): string[] {
  return wordsOf(name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2'));
}

// Common English function words plus the filler of requests ("I need someone to ..."): they match
// everything, so they only add noise to a word match, a lexical OR query and an averaged word vector.
const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing done down during each either etc every few for from further get gets getting got had has have having he her ' +
    'here hers herself him himself his how i if in into is it its itself just let lets many me more most much my myself need needs no nor ' +
    'not now of off on once one only or other our ours ourselves out over own please right same she should so some someone something ' +
    'such than that the their theirs them themselves then there these they this those through to too under until up us very via want ' +
    'wants was way we were what when where which while who whom why will with would you your yours yourself yourselves'
  ).split(' '),
);

export const isStopword = (word: string): boolean => STOPWORDS.has(word);

/** Words that carry meaning: no stopwords, no single letters, no bare numbers. */
export function contentWords(text: string): string[] {
  return wordsOf(text).filter((word) => word.length > 1 && !STOPWORDS.has(word) && !/^\p{N}+$/u.test(word));
}

const BRITISH: [RegExp, string][] = [
  [/isation(s?)$/, 'ization$1'],
  [/is(e|es|ed|ing|er|ers)$/, 'iz$1'],
  [/ys(e|es|ed|ing|er|ers)$/, 'yz$1'],
  [/our(s?)$/, 'or$1'],
  [/tre(s?)$/, 'ter$1'],
];

/**
 * Other spellings of a word to try when a word list lacks it, most likely first: US spelling of
 * British forms, then the word with its inflection removed ("parcels" -> "parcel", "shipped" ->
 * "ship", "tracking" -> "track", "categories" -> "category").
 */
export function spellingVariants(word: string): string[] {
  const variants: string[] = [];
  const add = (candidate: string) => {
    if (candidate.length >= 3 && candidate !== word && !variants.includes(candidate)) variants.push(candidate);
  };
  for (const [pattern, replacement] of BRITISH) if (pattern.test(word)) add(word.replace(pattern, replacement));
  for (const base of [word, ...variants]) {
    if (base.endsWith('ies')) add(`${base.slice(0, -3)}y`);
    if (base.endsWith('es')) add(base.slice(0, -2));
    if (base.endsWith('s') && !base.endsWith('ss')) add(base.slice(0, -1));
    for (const suffix of ['ing', 'ed', 'er', 'ers']) {
      if (!base.endsWith(suffix)) continue;
      const stem = base.slice(0, -suffix.length);
      add(stem);
      add(`${stem}e`);
      if (/([b-df-hj-np-tv-z])\1$/.test(stem)) add(stem.slice(0, -1));
    }
  }
  return variants;
}

/**
 * A light stemmer for matching words against each other: US spelling, then one inflectional or
 * common derivational suffix off ("regressions" -> "regression", "tracking" -> "track",
 * "summarise" -> "summariz"). Over-stemming is rarer than with Porter, which suits short texts.
 */
export function stem(word: string): string {
  let w = word;
  for (const [pattern, replacement] of BRITISH) {
    if (pattern.test(w)) {
      w = w.replace(pattern, replacement);
      break;
    }
  }
  if (w.length <= 3 || w === 'news') return w;
  for (const [suffix, replacement] of STEM_SUFFIXES) {
    if (suffix === 's' && /(ss|us|is)$/.test(w)) break;
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length) + replacement;
      break;
    }
  }
  if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  return w.endsWith('e') && w.length > 3 ? w.slice(0, -1) : w;
}

const STEM_SUFFIXES: [string, string][] = [
  ['ations', 'at'],
  ['ation', 'at'],
  ['ments', ''],
  ['ment', ''],
  ['ings', ''],
  ['ing', ''],
  ['ies', 'y'],
  ['ied', 'y'],
  ['edly', ''],
  ['ers', ''],
  ['er', ''],
  ['ed', ''],
  ['es', ''],
  ['s', ''],
];

/**
 * Plural and possessive endings only, the stem still a word ("paragraphs" -> "paragraph",
 * "boxes" -> "box"), for words compared with lists written as words (extraction's synonyms, cues
 * and field names), which `stem`'s cut forms ("summariz") would miss.
 */
export function pluralStem(word: string): string {
  const w = word.replace(/'s$/, '');
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(?:ch|sh|ss|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}
