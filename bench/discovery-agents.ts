/**
 * The 10,000 agents of the discovery benches, and their sentence vectors.
 *
 * Agents: a third copies of the fixture agents, the rest catalogue-shaped; 5% private; a quarter
 * with a recent heartbeat. Written straight into the database (the triggers index them as for any
 * write).
 *
 * Vectors: the real encoder's, written into `discovery_sentence_vectors` under the hash the service
 * looks for, as a node that earlier nodes already filled finds them. Names differ only by a number
 * ("Inbox Digest 42"), so each agent gets the vector of its text without the number: a few hundred
 * distinct texts, embedded once into a cache in bench/.out keyed by the encoder's model and text,
 * instead of 10,000 (over 4 minutes of one core).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { openDatabase } from '../src/db/database.ts';
import { newId } from '../src/lib/ids.ts';
import { capabilities } from '../src/modules/catalog/index.ts';
import { agentText } from '../src/modules/discovery/agent-index.ts';
import { createSentenceEncoder, SENTENCE_ENCODER_MODEL } from '../src/modules/discovery/sentence-encoder.ts';
import { fixtureAgents } from '../test/fixtures/discovery/relevance.ts';
import { agentRow, outDir, seededRandom } from './lib.ts';

const documentedCategories = new Set([
  'coding',
  'data',
  'devops',
  'finance',
  'health',
  'legal',
  'marketing',
  'productivity',
  'research',
  'security',
  'support',
  'other',
]);

/** Agents number `from` to `from + count - 1` (the same numbers always make the same agents). */
export function benchAgentRows(count: number, ownerId: string, from = 0) {
  const now = new Date().toISOString();
  return Array.from({ length: count }, (_, offset) => {
    const i = from + offset;
    const fixture = fixtureAgents[i % fixtureAgents.length]!;
    const capability = capabilities[(i * 7) % capabilities.length]!;
    const fromFixture = i % 3 === 0;
    const name = `${fromFixture ? fixture.name : capability.name} ${i}`;
    return agentRow({
      id: newId(),
      name,
      slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      description: fromFixture ? fixture.description : `${capability.description} Also handles ${capability.aliases[i % capability.aliases.length]}.`,
      endpoint: 'https://bench.example.test/hook',
      protocols: JSON.stringify(fromFixture ? fixture.protocols : ['rest']),
      categories: JSON.stringify(fromFixture ? fixture.categories : [documentedCategories.has(capability.category) ? capability.category : 'other']),
      capabilities: JSON.stringify(fromFixture ? fixture.capabilities : [capability.slug]),
      tags: JSON.stringify(fromFixture ? fixture.tags : capability.aliases.slice(0, 2)),
      visibility: i % 20 === 0 ? 'private' : 'public',
      status: 'active',
      owner_id: ownerId,
      registration_pubkey: null,
      delivery_mode: 'webhook',
      last_seen_at: i % 4 === 0 ? now : null,
      created_at: now,
      updated_at: now,
    });
  });
}

export type BenchRow = ReturnType<typeof benchAgentRows>[number];
/** The text the service embeds for a row (agent-index.ts `agentText`). */
export const textOf = (row: BenchRow) =>
  agentText({
    name: row.name,
    description: row.description ?? '',
    capabilities: JSON.parse(row.capabilities ?? '[]') as string[],
    tags: JSON.parse(row.tags ?? '[]') as string[],
    examples: JSON.parse(row.examples ?? '[]') as string[],
  });

/** Writes the agents in one transaction; returns them. */
export async function seedAgents(databaseUrl: string, ownerId: string, count: number, from = 0): Promise<BenchRow[]> {
  const rows = benchAgentRows(count, ownerId, from);
  const database = openDatabase({ url: databaseUrl });
  try {
    await database.transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += 500)
        await tx
          .insertInto('agents')
          .values(rows.slice(start, start + 500))
          .execute();
    });
  } finally {
    await database.close();
  }
  return rows;
}

const cachePath = join(outDir, `discovery-vectors-${SENTENCE_ENCODER_MODEL.replace(/[^a-z0-9.-]+/gi, '_')}.bin`);
const DIMENSIONS = 512;

/**
 * The encoder's vector of each text, from the cache, computing (and caching) the missing ones.
 * Cache layout: u32 count, then per entry 32 bytes SHA-256 of the text and 512 float32.
 */
export async function sentenceVectorsOf(texts: string[], progress: (done: number, total: number) => void = () => {}): Promise<Map<string, Float32Array>> {
  const key = (text: string) => createHash('sha256').update(text).digest('hex');
  const cached = new Map<string, Float32Array>();
  if (existsSync(cachePath)) {
    const file = readFileSync(cachePath);
    const count = file.readUInt32LE(0);
    for (let i = 0, at = 4; i < count; i++, at += 32 + DIMENSIONS * 4) {
      cached.set(file.toString('hex', at, at + 32), new Float32Array(file.buffer.slice(file.byteOffset + at + 32, file.byteOffset + at + 32 + DIMENSIONS * 4)));
    }
  }
  const missing = [...new Set(texts)].filter((text) => !cached.has(key(text)));
  if (missing.length > 0) {
    const encoder = createSentenceEncoder();
    try {
      for (let start = 0; start < missing.length; start += 16) {
        const batch = missing.slice(start, start + 16);
        (await encoder.embed(batch)).forEach((vector, i) => cached.set(key(batch[i]!), vector));
        progress(start + batch.length, missing.length);
      }
    } finally {
      await encoder.close?.();
    }
    const file = Buffer.alloc(4 + cached.size * (32 + DIMENSIONS * 4));
    file.writeUInt32LE(cached.size, 0);
    let at = 4;
    for (const [hash, vector] of cached) {
      file.write(hash, at, 'hex');
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(file, at + 32);
      at += 32 + DIMENSIONS * 4;
    }
    mkdirSync(outDir, { recursive: true });
    writeFileSync(cachePath, file);
  }
  return new Map(texts.map((text) => [text, cached.get(key(text))!]));
}

/** The text whose vector an agent gets: its own without the number in its name. */
const vectorTextOf = (row: BenchRow) => textOf({ ...row, name: row.name.replace(/ \d+$/, '') });

/**
 * Each agent's vector moved off its text's by Gaussian noise of this size per dimension and
 * normalised again: with `noise` > 0, agents that share a text form a cluster instead of one point
 * (an approximate index treats exact duplicates unlike real, distinct vectors).
 */
function scattered(vector: Float32Array, noise: number, random: () => number): Float32Array {
  if (noise === 0) return vector;
  const out = new Float32Array(vector.length);
  let norm = 0;
  for (let d = 0; d < vector.length; d++) {
    // Box-Muller: one standard normal draw from two uniforms.
    const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    out[d] = vector[d]! + noise * gaussian;
    norm += out[d]! * out[d]!;
  }
  norm = Math.sqrt(norm);
  for (let d = 0; d < out.length; d++) out[d] = out[d]! / norm;
  return out;
}

/** Stores the agents' vectors as the service would have (agent-index.ts: hash of model and text). */
export async function seedSentenceVectors(
  databaseUrl: string,
  rows: BenchRow[],
  { progress, noise = 0, seed = 1 }: { progress?: (done: number, total: number) => void; noise?: number; seed?: number } = {},
): Promise<void> {
  const texts = rows.map(textOf);
  const vectors = await sentenceVectorsOf(rows.map(vectorTextOf), progress);
  const random = seededRandom(seed);
  const database = openDatabase({ url: databaseUrl });
  try {
    await database.transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += 100) {
        const values = rows.slice(start, start + 100).map((row, i) => {
          const text = texts[start + i]!;
          const vector = scattered(vectors.get(vectorTextOf(row))!, noise, random);
          return {
            agent_id: row.id,
            text_hash: createHash('sha256').update(`${SENTENCE_ENCODER_MODEL}\n${text}`).digest('hex'),
            vector: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
          };
        });
        await tx.insertInto('discovery_sentence_vectors').values(values).execute();
      }
    });
  } finally {
    await database.close();
  }
}

/** `npx tsx bench/discovery-agents.ts [count]`: fills the vector cache ahead of a bench run. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 10_000);
  const started = performance.now();
  await sentenceVectorsOf(benchAgentRows(count, 'x').map(vectorTextOf), (done, total) => {
    if (done % 400 === 0 || done === total) process.stderr.write(`${done}/${total} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  });
}
