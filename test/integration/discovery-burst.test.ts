/**
 * A burst of registrations (docs/discovery.md, "Sentence encoder"): an agent registered in a burst
 * is found by its words at once, and by meaning once the encoder has made its sentence vector, which
 * no search waits for. The agents' encoder is the built-in one, held back here as a busy encoder
 * working through a burst is; queries go to the encoder at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SentenceEncoder } from '../../src/modules/discovery/index.ts';
import { registerAgent } from '../helpers/agents.ts';
import { sharedSentenceEncoder, startTestApp, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/wait.ts';
import { fixtureAgents, registrationOf } from '../fixtures/discovery/relevance.ts';

/** The built-in encoder, whose agents' batches wait while `hold` is on. */
function holdableEncoder() {
  const shared = sharedSentenceEncoder();
  let held: { promise: Promise<void>; release(): void } | null = null;
  const encoder: SentenceEncoder = {
    embed: (texts) => shared.embed(texts),
    background: {
      async embed(texts) {
        await held?.promise;
        return shared.background.embed(texts);
      },
    },
  };
  return {
    encoder,
    hold() {
      let release = () => {};
      const promise = new Promise<void>((resolve) => (release = resolve));
      held = { promise, release };
    },
    release() {
      held?.release();
      held = null;
    },
  };
}

const TARGET = fixtureAgents.find((agent) => agent.key === 'crypto-tracker')!;
/** Shares no word with the target: found by meaning alone (test/unit/discovery-sentence.test.ts). */
const MEANING_QUERY = 'what is my bitcoin worth';
const WORDS_QUERY = 'cryptocurrency wallets';
const BURST = 24;

describe('discovery: a burst of registrations', () => {
  const agentsEncoder = holdableEncoder();
  let app: TestApp;
  let token: string;

  const topSlug = async (q: string): Promise<string | undefined> => {
    const response = await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(q)}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data[0]?.slug;
  };
  const awaitingMeaning = async (): Promise<number> => {
    const text = (await app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    return Number(/^agentry_discovery_agents_awaiting_meaning (\S+)$/m.exec(text)?.[1]);
  };

  before(async () => {
    app = await startTestApp({}, { sentenceEncoder: agentsEncoder.encoder });
    token = (await app.signup()).token;
    for (const agent of fixtureAgents.filter((agent) => agent !== TARGET)) await registerAgent(app, token, registrationOf(agent));
    // The node's first load: these agents are embedded before it ends.
    assert.equal((await app.request({ method: 'GET', url: '/v1/discover?q=bookkeeping' })).statusCode, 200);
  });
  after(() => app.close());

  it('finds an agent registered in a burst by its words at once, and by meaning once its vector is made', async () => {
    agentsEncoder.hold();
    const burst = await Promise.all([
      registerAgent(app, token, registrationOf(TARGET)),
      ...Array.from({ length: BURST - 1 }, (_, i) => registerAgent(app, token, { description: `Handles chore number ${i} of a large import` })),
    ]);
    const target = burst[0]!;

    assert.equal(await topSlug(WORDS_QUERY), target.slug, 'found by its words while its vector is not made');
    assert.ok((await awaitingMeaning()) >= BURST, 'the burst waits for its vectors');
    assert.notEqual(await topSlug(MEANING_QUERY), target.slug, 'not yet found by meaning');

    agentsEncoder.release();
    await waitFor(
      'the agent to be found by meaning',
      () => topSlug(MEANING_QUERY),
      (slug) => slug === target.slug,
      { timeoutMs: 60_000 },
    );
    await waitFor('every vector of the burst to be made', awaitingMeaning, (waiting) => waiting === 0, { timeoutMs: 60_000 });
  });
});
