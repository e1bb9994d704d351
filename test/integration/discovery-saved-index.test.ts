/**
 * Discovery's saved index (DISCOVERY_INDEX_DIR, docs/operations.md): a node saves its index when it
 * stops and restores it when it starts, reading from the database only the agents changed since;
 * an index it cannot use (damaged, or made with other models) is left aside and every agent read.
 * Test nodes run the real discovery service on the app's database with a stand-in encoder.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Embedder } from '../../src/modules/discovery/embedder.ts';
import { createDiscoveryStore, type DiscoveryStore } from '../../src/modules/discovery/store.ts';
import { registerAgent } from '../helpers/agents.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { discoveryOver } from '../helpers/discovery.ts';

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

describe('discovery: the saved index', () => {
  let app: TestApp;
  let token: string;
  let store: DiscoveryStore;
  let indexDir: string;
  const agentIds: string[] = [];

  /** A test node on the app's database saving its index in `indexDir`; `pagesRead` counts reads of every agent. */
  function node(model: string) {
    const agents = countingEncoder();
    let pagesRead = 0;
    const counted: DiscoveryStore = {
      ...store,
      agentsPage: async (afterId, limit) => {
        pagesRead++;
        return store.agentsPage(afterId, limit);
      },
    };
    const errors: unknown[] = [];
    const service = discoveryOver(counted, {
      sentenceEncoders: { queries: countingEncoder(), agents },
      sentenceModel: model,
      queryMap: null,
      indexDir,
      onEmbedderError: (e) => errors.push(e),
    });
    const search = async (q: string) => (await service.search(null, { q, limit: 10, offset: 0 })).data.map((found) => found.id);
    return { agents, search, errors, pagesRead: () => pagesRead, close: () => service.close() };
  }

  before(async () => {
    app = await startTestApp();
    token = (await app.signup()).token;
    store = createDiscoveryStore(app.database.db, app.database.dialect);
    indexDir = await mkdtemp(join(tmpdir(), 'agentry-index-'));
    for (const [name, description] of [
      ['Hive Watch', 'Monitors beehives for swarming and queen loss.'],
      ['Orchard Planner', 'Plans fruit tree pruning and harvest schedules.'],
      ['Pollen Counter', 'Reports daily pollen levels for allergy sufferers.'],
    ]) {
      agentIds.push((await registerAgent(app, token, { name, description })).id);
    }
  });
  after(async () => {
    await app.close();
    await rm(indexDir, { recursive: true, force: true });
  });

  it('restores the index at the next start, with the changes made while it was stopped', async () => {
    const queries = ['beehive swarming', 'fruit harvest', 'allergy'];
    const first = node('test-model');
    const ranked = [];
    for (const q of queries) ranked.push(await first.search(q));
    assert.ok(ranked[0]!.includes(agentIds[0]!));
    await first.close();
    const files = await readdir(indexDir);
    assert.ok(files.includes('discovery-agents.bin'), files.join(', '));

    const restored = node('test-model');
    for (const [i, q] of queries.entries()) assert.deepEqual(await restored.search(q), ranked[i], `the same results for "${q}"`);
    assert.equal(restored.pagesRead(), 0, 'no agent was read from the database');
    assert.deepEqual(restored.agents.texts, [], 'none was embedded');
    await restored.close();

    // While no node runs: one agent registers, one changes its words, one leaves.
    const added = (await registerAgent(app, token, { name: 'Frost Alarm', description: 'Warns orchards of late frost at night.' })).id;
    const patched = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agentIds[1]}`,
      token,
      body: { description: 'Plans vineyard pruning and grape harvests.' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${agentIds[2]}`, token })).statusCode, 200);

    const changed = node('test-model');
    assert.ok((await changed.search('frost')).includes(added), 'the agent registered meanwhile is found');
    assert.ok((await changed.search('vineyard grape')).includes(agentIds[1]!), 'the changed agent is found by its new words');
    assert.ok(!(await changed.search('pollen allergy')).includes(agentIds[2]!), 'the deleted agent is gone');
    assert.equal(changed.pagesRead(), 0, 'only the changed agents were read');
    assert.equal(changed.agents.texts.length, 2, 'only the new and the changed text were embedded');
    assert.deepEqual(changed.errors, []);
    await changed.close();
  });

  it('reads every agent when the saved index was made with another model, or cannot be read', async () => {
    const otherModel = node('another-model');
    assert.ok((await otherModel.search('beehive swarming')).includes(agentIds[0]!));
    assert.ok(otherModel.pagesRead() > 0, 'a saved index of another model is not used');
    await otherModel.close();

    await writeFile(join(indexDir, 'discovery-agents.bin'), 'not an index');
    const damaged = node('another-model');
    assert.ok((await damaged.search('beehive swarming')).includes(agentIds[0]!));
    assert.ok(damaged.pagesRead() > 0);
    assert.match(String(damaged.errors[0]), /saved index could not be used/);
    await damaged.close();

    const again = node('another-model');
    await again.search('beehive swarming');
    assert.equal(again.pagesRead(), 0, 'the index saved at the last stop is whole again');
    await again.close();
  });
});
