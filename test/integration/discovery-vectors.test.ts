/**
 * Agents' sentence vectors are stored in the database (migration 0009, docs/discovery.md): the
 * service stores what it embeds, and a node starting on the same database (a restart, another node)
 * reuses them instead of running the model, for the same model and text only. Test nodes run the
 * real discovery service on the app's database with a counting stand-in encoder.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Embedder } from '../../src/modules/discovery/embedder.ts';
import { agentText } from '../../src/modules/discovery/agent-index.ts';
import { SENTENCE_ENCODER_MODEL } from '../../src/modules/discovery/sentence-encoder.ts';
import { createDiscoveryStore, type DiscoveryStore, type StoredSentenceVector } from '../../src/modules/discovery/store.ts';
import { registerAgent } from '../helpers/agents.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { discoveryOver } from '../helpers/discovery.ts';
import { waitFor } from '../helpers/wait.ts';

/** Deterministic vectors from a text's hash, counting the texts it was asked to embed. */
function countingEncoder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    embed: async (batch) => {
      texts.push(...batch);
      return batch.map((text) => {
        const digest = createHash('sha256').update(text).digest();
        return Float32Array.from({ length: 8 }, (_, i) => digest[i]! / 255 - 0.5);
      });
    },
  };
}

const hashOf = (model: string, text: string) => createHash('sha256').update(`${model}\n${text}`).digest('hex');

describe('discovery: stored sentence vectors', () => {
  let app: TestApp;
  let token: string;
  let store: DiscoveryStore;
  const agentIds: string[] = [];
  const storedRows = () => app.database.db.selectFrom('discovery_sentence_vectors').selectAll().orderBy('agent_id').execute();
  const textsById = async () => new Map((await store.agentsByIds(agentIds)).map((row) => [row.id, agentText(row)]));

  /** A test node on the app's database; `saved` counts vectors it has written. */
  function node(model: string | null) {
    const agents = countingEncoder();
    let saved = 0;
    const counted: DiscoveryStore = {
      ...store,
      saveSentenceVectors: async (vectors: StoredSentenceVector[]) => {
        await store.saveSentenceVectors(vectors);
        saved += vectors.length;
      },
    };
    const errors: unknown[] = [];
    const service = discoveryOver(counted, {
      sentenceEncoders: { queries: countingEncoder(), agents },
      sentenceModel: model,
      queryMap: null,
      onEmbedderError: (e) => errors.push(e),
    });
    const search = async (q: string) => (await service.search(null, { q, limit: 10, offset: 0 })).data.map((found) => found.id);
    return { agents, search, errors, saved: () => saved, close: () => service.close() };
  }

  before(async () => {
    app = await startTestApp();
    token = (await app.signup()).token;
    store = createDiscoveryStore(app.database.db, app.database.dialect);
    for (const [name, description] of [
      ['Hive Watch', 'Monitors beehives for swarming and queen loss.'],
      ['Orchard Planner', 'Plans fruit tree pruning and harvest schedules.'],
      ['Pollen Counter', 'Reports daily pollen levels for allergy sufferers.'],
    ]) {
      agentIds.push((await registerAgent(app, token, { name, description })).id);
    }
  });
  after(() => app.close());

  it('stores every agent vector the service makes, under the built-in model and the text embedded', async () => {
    const found = await app.request({ method: 'GET', url: '/v1/discover?q=bees' });
    assert.equal(found.statusCode, 200);
    await waitFor('the vectors to be stored', async () => (await storedRows()).length === agentIds.length);
    const texts = await textsById();
    for (const row of await storedRows()) {
      assert.equal(row.text_hash, hashOf(SENTENCE_ENCODER_MODEL, texts.get(row.agent_id)!));
      assert.equal(row.vector.length, 512 * 4, 'float32 x 512');
    }
  });

  it('a node starting on the same database reuses the stored vectors instead of running the model', async () => {
    const first = node('test-model');
    const ranked = await first.search('beehive swarming');
    assert.equal(first.agents.texts.length, agentIds.length, 'the other model’s vectors are not used');
    await waitFor('the first node to store its vectors', async () => first.saved() === agentIds.length);
    await first.close();

    const second = node('test-model');
    assert.deepEqual(await second.search('beehive swarming'), ranked, 'same results from stored vectors');
    assert.deepEqual(second.agents.texts, [], 'no agent was embedded again');
    assert.deepEqual(second.errors, []);
    await second.close();
  });

  it('embeds again only the agent whose text changed, and stores its new vector', async () => {
    const running = node('test-model');
    await running.search('orchard');
    assert.deepEqual(running.agents.texts, []);
    const changed = agentIds[1]!;
    const patched = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${changed}`,
      token,
      body: { description: 'Plans vineyard pruning and grape harvests.' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    await running.search('vineyard');
    const newText = (await textsById()).get(changed)!;
    // Embedded after the search that saw the change, not before it answers.
    await waitFor('the changed text to be embedded', () => running.agents.texts.length > 0);
    assert.deepEqual(running.agents.texts, [newText]);
    await waitFor(
      'the new vector to be stored',
      async () => (await storedRows()).find((row) => row.agent_id === changed)?.text_hash === hashOf('test-model', newText),
    );
    await running.close();

    const restarted = node('test-model');
    await restarted.search('vineyard');
    assert.deepEqual(restarted.agents.texts, [], 'the new vector was reused too');
    await restarted.close();
  });

  it('does not use a stored vector that is empty (damaged), and embeds that agent again', async () => {
    await app.database.db
      .updateTable('discovery_sentence_vectors')
      .set({ vector: Buffer.alloc(0) })
      .where('agent_id', '=', agentIds[2]!)
      .execute();
    const restarted = node('test-model');
    await restarted.search('pollen');
    assert.deepEqual(restarted.agents.texts, [(await textsById()).get(agentIds[2]!)]);
    await restarted.close();
  });

  it('forgets the vector of a deleted agent, and a starting node removes any left behind', async () => {
    const running = node('test-model');
    await running.search('pollen');
    const gone = agentIds[2]!;
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${gone}`, token })).statusCode, 200);
    await running.search('pollen');
    await waitFor('the deleted agent’s vector to go', async () => !(await storedRows()).some((row) => row.agent_id === gone));
    await running.close();

    await app.database.db
      .insertInto('discovery_sentence_vectors')
      .values({ agent_id: 'no-such-agent', text_hash: 'x', vector: Buffer.alloc(32) })
      .execute();
    const starting = node('test-model');
    await starting.search('pollen');
    assert.ok(!(await storedRows()).some((row) => row.agent_id === 'no-such-agent'));
    await starting.close();
  });

  it('stores nothing for an encoder without a model name (a configured remote model)', async () => {
    const before = await storedRows();
    const unnamed = node(null);
    await unnamed.search('beehive');
    assert.equal(unnamed.agents.texts.length, agentIds.length - 1);
    // Closing writes every vector made so far, so after it nothing is left that could still be stored.
    await unnamed.close();
    assert.equal(unnamed.saved(), 0);
    assert.deepEqual(await storedRows(), before);
  });
});
