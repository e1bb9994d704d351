/**
 * Words for search: lowercase, accents removed, split on anything that is not a letter or digit.
 * The same tokens feed the lexical query, the catalogue lookup and the word-vector embedder, so a
 * query and an agent description are always cut the same way.
 */

// Common English function words plus the filler of requests ("I need someone to ..."): they match
// everything, so they only add noise to a lexical OR query and to an averaged word vector.
const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing done down during each either etc every few for from further get gets getting got had has have having he her ' +
    'here hers herself him himself his how i if in into is it its itself just let lets me more most much my myself need needs no nor not ' +
    'now of off on once one only or other our ours ourselves out over own please right same she should so some someone something such ' +
    'than that the their theirs them themselves then there these they this those through to too under until up us very via want wants ' +
    'was way we were what when where which while who whom why will with would you your yours yourself yourselves'
  ).split(' '),
);

/** All words of a text, in order. "Brand's e-mail" -> ["brand", "e", "mail"]. */
export function wordsOf(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['\u2019]s\b/g, '')
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Words that carry meaning: no stopwords, no single letters, no bare numbers. */
export function contentWords(text: string): string[] {
  return wordsOf(text).filter((word) => word.length > 1 && !STOPWORDS.has(word) && !/^\d+$/.test(word));
}

const BRITISH: [RegExp, string][] = [
  [/isation(s?)$/, 'ization$1'],
  [/is(e|es|ed|ing|er|ers)$/, 'iz$1'],
  [/ys(e|es|ed|ing|er|ers)$/, 'yz$1'],
  [/our(s?)$/, 'or$1'],
  [/tre(s?)$/, 'ter$1'],
];

/**
 * Other spellings of a word to try when the word table lacks it, most likely first: US spelling of
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
 * A light stemmer for matching words against the catalogue: US spelling, then one inflectional or
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
