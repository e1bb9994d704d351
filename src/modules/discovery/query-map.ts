/**
 * The query map: a 512x512 linear map applied to a query's sentence-encoder vector before it is
 * compared with agents' vectors. People ask in short, casual words ("where is my package"); agents
 * describe themselves in longer, descriptive ones ("Tracks parcels across carriers"). The capability
 * catalogue holds both kinds for each capability (aliases, and a name with a description), so a map
 * fitted by ridge regression from the encoder's vectors of the aliases to those of the capabilities'
 * whole texts moves a query towards how the catalogue, and agents, put it. Fitted on the catalogue only
 * (never on the relevance set's queries) by scripts/build-query-map.ts into assets/query-map.bin;
 * docs/discovery.md has the measurements.
 *
 * The map belongs to the catalogue it was fitted on: the file records a hash of that catalogue, and
 * a file fitted on another catalogue (or a missing or damaged one) is refused, so search goes on
 * without the map rather than with a stale one. test/unit/discovery-query-map.test.ts fails when the
 * catalogue changes and the file was not rebuilt.
 *
 * File layout (little endian): "AGQM", u32 version (1), u32 dimensions (n), f32 ridge lambda (for
 * the record), 32 bytes SHA-256 of the catalogue (catalogueHash), f32 scales[n], int8 rows[n * n].
 * Row i gives output dimension i: out[i] = scales[i] * sum_j rows[i * n + j] * q[j]. Int8 with a
 * per-row scale (max |w| / 127) keeps the file at a quarter of float32 (264 KB for n = 512).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { capabilities, type Capability } from '../catalog/index.ts';
import { createVectorMatrix } from './vector-matrix.ts';
import { normalize } from './embedder.ts';
import { SENTENCE_ENCODER_MODEL } from './sentence-encoder.ts';

export const defaultQueryMapPath = new URL('../../../assets/query-map.bin', import.meta.url);

const MAGIC = 'AGQM';
const VERSION = 1;
const HEADER_BYTES = 4 + 4 + 4 + 4 + 32;

/**
 * How much of the mapped vector a query takes: q' = normalize(q + BLEND * (normalize(Wq) - q)).
 * Picked on the odd-indexed relevance-set queries only (docs/discovery.md; 0.25 and 0.3 tied there,
 * the smaller change was kept). The map alone (1) did worse than the blend: it pulls every query
 * towards the catalogue's capabilities and loses what the query's own vector says.
 */
export const QUERY_MAP_BLEND = 0.25;

/**
 * What the map is fitted on, part of the hash so that the build script and the check cannot
 * disagree: each alias (a short phrase people use), as it is, maps to its capability's text as the
 * concept mapper has it (concepts.ts `capabilityText`: name, description, aliases). Changing this
 * recipe changes the hash: the file must then be rebuilt, as when the catalogue changes.
 */
export const QUERY_MAP_RECIPE = 'query-map v1: encoder(alias) -> encoder(name description aliases), ridge towards 0';

/** SHA-256 of the recipe, the encoder model, and every capability's slug, name, description and aliases, in catalogue order. */
export function catalogueHash(catalogue: readonly Capability[] = capabilities, model: string = SENTENCE_ENCODER_MODEL): Buffer {
  const content = catalogue.map((c) => [c.slug, c.name, c.description, c.aliases]);
  return createHash('sha256')
    .update(JSON.stringify([QUERY_MAP_RECIPE, model, content]))
    .digest();
}

export interface QueryMap {
  dimensions: number;
  /** A new unit vector (the input, which may be a cached one, is left alone); a vector of another size comes back unchanged. */
  apply(vector: Float32Array, blend?: number): Float32Array;
}

/** Serialises a map given as float rows (rows[i * n + j]: output i, input j). */
export function encodeQueryMap({
  dimensions: n,
  rows,
  lambda,
  hash,
}: {
  dimensions: number;
  rows: Float64Array | Float32Array;
  lambda: number;
  hash: Buffer;
}): Buffer {
  if (rows.length !== n * n || hash.length !== 32) throw new Error('query map: rows must be n x n and the hash 32 bytes');
  const file = Buffer.alloc(HEADER_BYTES + n * 4 + n * n);
  file.write(MAGIC, 0, 'latin1');
  file.writeUInt32LE(VERSION, 4);
  file.writeUInt32LE(n, 8);
  file.writeFloatLE(lambda, 12);
  hash.copy(file, 16);
  const weightsStart = HEADER_BYTES + n * 4;
  for (let i = 0; i < n; i++) {
    let max = 0;
    for (let j = 0; j < n; j++) max = Math.max(max, Math.abs(rows[i * n + j]!));
    const scale = max / 127 || 1;
    file.writeFloatLE(scale, HEADER_BYTES + i * 4);
    for (let j = 0; j < n; j++) file.writeInt8(Math.round(rows[i * n + j]! / scale), weightsStart + i * n + j);
  }
  return file;
}

/**
 * Reads and checks a map file. Throws, saying why, when it is not a map, is truncated, or was fitted
 * on another catalogue than `expectedHash` (default: the current one).
 */
export function decodeQueryMap(
  file: Buffer,
  { expectedHash = catalogueHash(), source = 'query map' }: { expectedHash?: Buffer; source?: string } = {},
): QueryMap & { lambda: number } {
  if (file.length < HEADER_BYTES || file.toString('latin1', 0, 4) !== MAGIC || file.readUInt32LE(4) !== VERSION) {
    throw new Error(`${source} is not a query map (build it with scripts/build-query-map.ts)`);
  }
  const n = file.readUInt32LE(8);
  if (n === 0 || file.length !== HEADER_BYTES + n * 4 + n * n) throw new Error(`${source} is truncated or corrupt`);
  if (!file.subarray(16, 48).equals(expectedHash)) {
    throw new Error(`${source} was fitted on another capability catalogue: rebuild it with npx tsx scripts/build-query-map.ts`);
  }
  const lambda = file.readFloatLE(12);
  const scales = new Float32Array(n);
  for (let i = 0; i < n; i++) scales[i] = file.readFloatLE(HEADER_BYTES + i * 4);
  // Rows as float32 in a vector matrix: one SIMD call maps a query (~0.2 ms, against ~2 ms looping here).
  const rows = createVectorMatrix();
  const weights = new Int8Array(file.buffer, file.byteOffset + HEADER_BYTES + n * 4, n * n);
  for (let i = 0; i < n; i++) rows.put(-1, Float32Array.from(weights.subarray(i * n, (i + 1) * n)));

  return {
    dimensions: n,
    lambda,
    apply(vector, blend = QUERY_MAP_BLEND) {
      if (vector.length !== n) return vector;
      const mapped = rows.dotAll(vector);
      for (let i = 0; i < n; i++) mapped[i]! *= scales[i]!;
      // Normalised before blending: ridge shrinks the map's output, and `blend` should not depend on by how much.
      normalize(mapped);
      for (let i = 0; i < n; i++) mapped[i] = vector[i]! + blend * (mapped[i]! - vector[i]!);
      return normalize(mapped);
    },
  };
}

export function loadQueryMap(path: string | URL = defaultQueryMapPath): QueryMap & { lambda: number } {
  return decodeQueryMap(readFileSync(path), { source: String(path) });
}

/**
 * The shipped map, read on first use (like the word table) and then kept. When it cannot be used
 * (missing, damaged, fitted on another catalogue) `onError` hears why, once, and queries are
 * compared unmapped: search loses a little relevance, never an answer.
 */
export function lazyQueryMap(onError: (error: unknown) => void, path: string | URL = defaultQueryMapPath): () => QueryMap | null {
  let map: QueryMap | null | undefined;
  return () => {
    if (map !== undefined) return map;
    try {
      map = loadQueryMap(path);
    } catch (error) {
      map = null;
      onError(
        new Error(`discovery: query map not used, queries are compared unmapped (${error instanceof Error ? error.message : String(error)})`, { cause: error }),
      );
    }
    return map;
  };
}
