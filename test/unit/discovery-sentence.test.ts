/**
 * The sentence encoder in discovery: queries find agents they share no word with, and search still
 * answers (on word vectors) when the encoder fails. The service runs on an in-memory store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSentenceEncoder, withRecentVectors } from '../../src/modules/discovery/sentence-encoder.ts';
import type { Embedder } from '../../src/modules/discovery/embedder.ts';
import { agentText } from '../../src/modules/discovery/agent-index.ts';
import { fixtureAgents, fixtureQueries } from '../fixtures/discovery/relevance.ts';
import { agentRecord, memorySearch } from '../helpers/discovery.ts';

// The relevance set's agents (test/fixtures/discovery), as records in an in-memory store.
const rows = fixtureAgents.map((a) => agentRecord({ id: a.key, name: a.name, description: a.description, capabilities: a.capabilities, tags: a.tags }));

const search = (sentenceEncoders: { queries: Embedder; agents: Embedder } | null, errors: unknown[] = []) =>
  memorySearch(rows, { sentenceEncoders, onEmbedderError: (error) => errors.push(error) });

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

  it('answers a search that was running at shutdown without reporting the closed encoder as a failure', async () => {
    // Like the built-in encoder: what is pending when it closes fails with "closed", and so does later work.
    const waiting: ((error: Error) => void)[] = [];
    let closed = false;
    const closing: Embedder = {
      embed: () => (closed ? Promise.reject(new Error('sentence encoder closed')) : new Promise((_, reject) => waiting.push(reject))),
      close: async () => {
        closed = true;
        for (const reject of waiting.splice(0)) reject(new Error('sentence encoder closed'));
      },
    };
    const errors: unknown[] = [];
    const find = search({ queries: closing, agents: closing }, errors);
    const running = find('turn my recorded chat show into text');
    while (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await find.close();
    assert.equal((await running)[0], 'podcast-transcriber', 'the search still answers, on word vectors');
    assert.deepEqual(errors, []);
  });

  it('gives a text the same vector in a batch of agents as alone, so agents rank alike however they were embedded', async () => {
    const encoder = createSentenceEncoder();
    const texts = fixtureAgents.map((agent) => agentText({ ...agent, examples: [] }));
    // Background work first: with no query lately, the encoder runs it in batches of texts of similar length.
    const batched = await encoder.background.embed(texts);
    const oneRun = await encoder.embed(texts);
    const alone: Float32Array[] = [];
    for (const text of texts) alone.push((await encoder.embed([text]))[0]!);
    let largest = 0;
    for (const [i, vector] of alone.entries()) {
      for (let d = 0; d < vector.length; d++) {
        largest = Math.max(largest, Math.abs(vector[d]! - batched[i]![d]!), Math.abs(vector[d]! - oneRun[i]![d]!));
      }
    }
    assert.ok(largest < 1e-5, `largest difference ${largest}`);

    const oneAtATime: Embedder = { embed: async (batch) => Promise.all(batch.map(async (text) => (await encoder.embed([text]))[0]!)) };
    const byBatch = search({ queries: encoder, agents: encoder.background });
    const bySingle = search({ queries: encoder, agents: oneAtATime });
    for (const { q } of fixtureQueries.slice(0, 15)) assert.deepEqual(await byBatch(q), await bySingle(q), q);
    await Promise.all([byBatch.close(), bySingle.close()]);
    await encoder.close!();
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
