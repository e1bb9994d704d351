/**
 * The capability catalogue as a bridge between a query's words and an agent's: both are mapped
 * onto the catalogue's capabilities ("concepts") and compared there. A capability is described in
 * many words (name, description and the aliases people use), so a query and an agent that share no
 * word can still land on the same capability. Explicit Semantic Analysis, with the catalogue as the
 * concept base.
 */
import { capabilities, findCapability, type Capability } from '../catalog/index.ts';
import { normalize, type Embedder } from './embedder.ts';
import { contentWords, stem, wordsOf } from '../../lib/words.ts';

/** A text's strongest capabilities: catalogue index and weight; the weights have unit length. */
export type Concepts = { index: number; weight: number }[];

/** How a capability's score mixes its vector similarity with its lexical (BM25) match. */
const LEXICAL_SHARE = 0.5;
/** BM25 at which a capability counts as a full lexical match. */
const BM25_FULL = 8;
/** How many capabilities a text keeps, and how sharply the best dominates (softmax temperature). */
export const CONCEPTS_KEPT = 3;
const TEMPERATURE = 0.1;
/** Longest alias, in words, looked for verbatim in a text. */
const MAX_PHRASE = 4;

const capabilityIndex = new Map(capabilities.map((c, i) => [c.slug, i]));
/** A capability as one text: what the concept mapper compares texts with, and what the query map is fitted towards. */
export const capabilityText = (capability: Capability): string => [capability.name, capability.description, ...capability.aliases].join(' ');
const capabilityTexts = capabilities.map(capabilityText);

/** Each capability's words (name, description, aliases), stemmed, in catalogue order. */
const catalogueWords = capabilityTexts.map((text) => contentWords(text).map(stem));
/**
 * The same as sets: the words people use for a capability, so an agent offering it accounts for a
 * query's word written as one of them ("package" for a parcel tracker: alias "track package").
 */
export const capabilityStems: readonly ReadonlySet<string>[] = catalogueWords.map((words) => new Set(words));

/** BM25 over the catalogue's texts (stemmed), built once as an inverted index. */
const catalogueBm25 = (() => {
  const postings = new Map<string, { document: number; weight: number }[]>();
  const documents = catalogueWords;
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / documents.length;
  documents.forEach((stems, document) => {
    const counts = new Map<string, number>();
    for (const s of stems) counts.set(s, (counts.get(s) ?? 0) + 1);
    for (const [s, tf] of counts) {
      const list = postings.get(s) ?? [];
      list.push({ document, weight: (tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * stems.length) / averageLength)) });
      postings.set(s, list);
    }
  });
  for (const list of postings.values()) {
    const idf = Math.log(1 + (documents.length - list.length + 0.5) / (list.length + 0.5));
    for (const posting of list) posting.weight *= idf;
  }
  return (text: string): Float32Array => {
    const scores = new Float32Array(documents.length);
    for (const s of new Set(contentWords(text).map(stem))) for (const posting of postings.get(s) ?? []) scores[posting.document]! += posting.weight;
    return scores;
  };
})();

/** Capabilities named verbatim in a text, by slug, name or alias ("summarise my inbox" -> email-digest). */
export function mentionedCapabilities(text: string): string[] {
  const words = wordsOf(text);
  const found = new Set<string>();
  for (let n = 1; n <= MAX_PHRASE; n++) {
    for (let i = 0; i + n <= words.length; i++) {
      const capability = findCapability(words.slice(i, i + n).join(' '));
      if (capability) found.add(capability.slug);
    }
  }
  return [...found];
}

/** Catalogue slugs that an agent's own capability and tag terms name. */
export function declaredCapabilities(terms: string[]): string[] {
  return [...new Set(terms.map((term) => findCapability(term)?.slug).filter((slug): slug is string => slug !== undefined))];
}

export const dot = (a: Float32Array, b: Float32Array): number => {
  let sum = 0;
  for (let i = 0, n = Math.min(a.length, b.length); i < n; i++) sum += a[i]! * b[i]!;
  return sum;
};

export function createConceptMapper(embedder: Embedder) {
  let vectors: Promise<Float32Array[]> | null = null;
  const catalogueVectors = () => (vectors ??= embedder.embed(capabilityTexts));

  return {
    /**
     * `vector` is the text's embedding (null when the embedder failed: the lexical half decides);
     * `certain` are slugs known to apply (named verbatim, or declared by the agent). A query's
     * concepts are scaled by how well its best capability matched, so a query the catalogue does
     * not cover ("bicycle") gets little from this signal instead of its nearest capability in full.
     */
    async conceptsOf(text: string, vector: Float32Array | null, certain: string[], { scaleByConfidence = false } = {}): Promise<Concepts> {
      const lexical = catalogueBm25(text);
      const catalogue = vector ? await catalogueVectors() : null;
      const scores = new Float32Array(capabilities.length);
      for (let k = 0; k < scores.length; k++) {
        const semantic = catalogue ? Math.max(0, dot(vector!, catalogue[k]!)) : 0;
        scores[k] = (1 - LEXICAL_SHARE) * semantic + LEXICAL_SHARE * Math.min(1, lexical[k]! / BM25_FULL);
      }
      for (const slug of certain) {
        const k = capabilityIndex.get(slug);
        if (k !== undefined) scores[k] = 1;
      }
      const best = strongest(scores, CONCEPTS_KEPT);
      if (best.length === 0) return [];
      const top = scores[best[0]!]!;
      const weights = normalize(Float32Array.from(best, (k) => Math.exp((scores[k]! - top) / TEMPERATURE)));
      const confidence = scaleByConfidence ? top : 1;
      return best.map((index, i) => ({ index, weight: weights[i]! * confidence }));
    },
  };
}

export type ConceptMapper = ReturnType<typeof createConceptMapper>;

/** Indexes of the `count` highest positive scores, best first. */
function strongest(scores: Float32Array, count: number): number[] {
  const best: number[] = [];
  for (let k = 0; k < scores.length; k++) {
    if (scores[k]! <= 0) continue;
    let at = best.length;
    while (at > 0 && scores[best[at - 1]!]! < scores[k]!) at--;
    if (at < count) {
      best.splice(at, 0, k);
      if (best.length > count) best.pop();
    }
  }
  return best;
}

/** Dot product of two concept lists (an agent's have unit length, a query's at most unit length). */
export function conceptSimilarity(a: Concepts, b: Concepts): number {
  let sum = 0;
  for (const x of a) for (const y of b) if (x.index === y.index) sum += x.weight * y.weight;
  return sum;
}
