import { capabilities } from '../catalog/index.ts';
import { contentWords } from '../../lib/words.ts';
import { loadWordTable, type WordTable } from './word-vectors.ts';

/** Turns texts into vectors compared by cosine. A text with nothing to embed gives a zero vector. */
export interface Embedder {
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Releases what it holds (a worker thread); later calls reject. */
  close?(): Promise<void>;
}

const norm = (vector: Float32Array): number => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));

export function normalize(vector: Float32Array): Float32Array {
  const length = norm(vector);
  if (length > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= length;
  return vector;
}

/**
 * SIF weight (Arora et al. 2017) from a word's frequency rank: a / (a + p(w)) with p(w) from Zipf's
 * law (rank r of a vocabulary of ~400k words: p ~ 1 / (r * ln 400k)). Frequent words ("make",
 * "keep", "set") weigh little, rare ones ("invoice", "thermostat") close to 1. Rank is the row in
 * the word table, which lists words by corpus frequency, so no statistics of our own agents are
 * needed and an agent's vector never changes when other agents come and go.
 */
const SIF_A = 1e-3;
const sifWeight = (rank: number): number => SIF_A / (SIF_A + 1 / ((rank + 10) * 12));

/**
 * The built-in, offline embedder: SIF-weighted average of int8 GloVe word vectors, unit length,
 * minus the direction all texts share. Averaged word vectors all lean towards a common direction
 * (frequent discourse words), which makes unrelated texts look alike; removing the mean direction
 * of the capability catalogue texts (a fixed, representative sample of what agents describe) and
 * normalising again spreads them out. The table is read on first use.
 */
export function createWordVectorEmbedder(options: { tablePath?: string | URL } = {}): Embedder {
  let state: { table: WordTable; common: Float32Array } | null = null;

  function average(table: WordTable, text: string): Float32Array {
    const sum = new Float32Array(table.dimensions);
    for (const word of contentWords(text)) {
      const row = table.lookup(word);
      if (row !== undefined) table.addRow(row, sifWeight(row), sum);
    }
    return normalize(sum);
  }

  function load() {
    if (state) return state;
    const table = loadWordTable(options.tablePath);
    const common = new Float32Array(table.dimensions);
    for (const capability of capabilities) {
      const vector = average(table, [capability.name, capability.description, ...capability.aliases].join(' '));
      for (let d = 0; d < common.length; d++) common[d]! += vector[d]! / capabilities.length;
    }
    state = { table, common };
    return state;
  }

  return {
    async embed(texts) {
      const { table, common } = load();
      return texts.map((text) => {
        const vector = average(table, text);
        if (norm(vector) === 0) return vector;
        for (let d = 0; d < vector.length; d++) vector[d]! -= common[d]!;
        return normalize(vector);
      });
    },
  };
}

export interface RemoteEmbedderOptions {
  /** Base URL of an OpenAI-compatible API; `/embeddings` is appended. */
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const REMOTE_BATCH = 64;

/** Any OpenAI-compatible `POST /embeddings` endpoint (OpenAI, Ollama, vLLM, LiteLLM, ...). */
export function createRemoteEmbedder({ url, model, apiKey, timeoutMs = 10_000, fetch: fetchImpl = fetch }: RemoteEmbedderOptions): Embedder {
  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const response = await fetchImpl(`${url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({ model, input: texts }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`embeddings endpoint answered ${response.status}`);
    const body = (await response.json()) as { data?: { index?: number; embedding?: unknown }[] };
    const vectors = new Array<Float32Array>(texts.length);
    for (const [position, item] of (body.data ?? []).entries()) {
      const index = item.index ?? position;
      if (!Array.isArray(item.embedding) || index < 0 || index >= texts.length) throw new Error('embeddings endpoint answered an unexpected shape');
      vectors[index] = normalize(Float32Array.from(item.embedding as number[]));
    }
    for (let i = 0; i < texts.length; i++) if (!vectors[i]) throw new Error('embeddings endpoint left texts out');
    return vectors;
  }

  return {
    async embed(texts) {
      const result: Float32Array[] = [];
      // An empty text would be refused by some servers; it embeds as nothing.
      const wanted = texts.map((text, i) => ({ text: text.trim(), i })).filter((t) => t.text.length > 0);
      for (let start = 0; start < wanted.length; start += REMOTE_BATCH) {
        const batch = wanted.slice(start, start + REMOTE_BATCH);
        const vectors = await embedBatch(batch.map((t) => t.text));
        batch.forEach((t, j) => (result[t.i] = vectors[j]!));
      }
      const dimensions = result.find((v) => v)?.length ?? 1;
      return texts.map((_, i) => result[i] ?? new Float32Array(dimensions));
    },
  };
}
