/**
 * The sentence encoder in discovery: queries find agents they share no word with, and search still
 * answers (on word vectors) when the encoder fails. The service runs on an in-memory store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { createDiscoveryService } from '../../src/modules/discovery/service.ts';
import { createSentenceEncoder, withRecentVectors } from '../../src/modules/discovery/sentence-encoder.ts';
import { createWordVectorEmbedder, type Embedder } from '../../src/modules/discovery/embedder.ts';
import type { AgentRow, DiscoveryStore } from '../../src/modules/discovery/store.ts';
import { fixtureAgents } from '../fixtures/discovery/relevance.ts';

// The relevance set's agents (test/fixtures/discovery), as rows of an in-memory store.
const rows = fixtureAgents.map(
  (a) =>
    ({ id: a.key, name: a.name, slug: a.key, description: a.description, capabilities: JSON.stringify(a.capabilities), tags: JSON.stringify(a.tags), categories: '[]', protocols: '[]', visibility: 'public', last_seen_at: null, registration_pubkey: null }) as unknown as AgentRow,
);

const store = {
  lexical: async () => new Map(),
  lastChange: async () => 0,
  changesSince: async () => [],
  allAgents: async () => rows,
  agentsByIds: async (ids: string[]) => rows.filter((row) => ids.includes(row.id)),
  agentBySlug: async (slug: string) => rows.find((row) => row.slug === slug),
  seenSince: async () => [],
} as unknown as DiscoveryStore;

function search(sentenceEncoders: { queries: Embedder; agents: Embedder } | null, errors: unknown[] = []) {
  const service = createDiscoveryService({
    store,
    registry: { view: (row) => ({ id: row.id }), canSee: async () => true, visibilityFor: () => () => true, availabilityOf: () => 'offline' },
    trust: { trustBySubject: async () => new Map() },
    embedder: createWordVectorEmbedder(),
    sentenceEncoders,
    clock: systemClock,
    onEmbedderError: (error) => errors.push(error),
  });
  return async (q: string) => (await service.search(null, { q, limit: 10, offset: 0 })).data.map((found) => found.id);
}

describe('discovery: sentence encoder', () => {
  it('finds an agent from a question sharing no word with it, where word vectors alone do not', async () => {
    const encoder = createSentenceEncoder();
    const question = 'what is my bitcoin worth'; // crypto-tracker: "Tracks cryptocurrency portfolio balances across wallets and exchanges."
    assert.equal((await search({ queries: encoder, agents: encoder })(question))[0], 'crypto-tracker');
    assert.notEqual((await search(null)(question))[0], 'crypto-tracker');
  });

  it('still answers, on word vectors, when the encoder fails', async () => {
    const broken: Embedder = { embed: async () => Promise.reject(new Error('model missing')) };
    const errors: unknown[] = [];
    const find = search({ queries: broken, agents: broken }, errors);
    assert.equal((await find('turn my recorded chat show into text'))[0], 'podcast-transcriber');
    assert.ok(errors.length > 0, 'the failure is reported');
  });

  it('stops its worker when closed, and refuses work afterwards', async () => {
    const encoder = withRecentVectors(createSentenceEncoder(), 4);
    assert.equal((await encoder.embed(['hello']))[0]!.length, 512);
    await encoder.close!();
    await assert.rejects(encoder.embed(['another text']), /closed/);
  });

  it('runs the model once for a repeated query', async () => {
    let runs = 0;
    const counting = withRecentVectors({ embed: async (texts) => (runs++, texts.map(() => new Float32Array([1]))) }, 2);
    await counting.embed(['a']);
    await counting.embed(['a']);
    assert.equal(runs, 1);
    await counting.embed(['b']);
    await counting.embed(['c']);
    await counting.embed(['a']);
    assert.equal(runs, 4, 'the least recent text was forgotten');
  });
});
