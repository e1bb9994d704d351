import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { newAgentKey, proveKey, registerAgent, registerProvisional } from '../helpers/agents.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';

interface ClassTrust {
  taskClass: string;
  score: number;
  receipts: number;
  issuers: number;
  weight: number;
  taskBound: number;
}

/** One owner's success about no task of this registry: half weight, (0.5 x 4 + 0.5) / 4.5. */
const ONE_UNBOUND_SUCCESS = { taskClass: 'code.review.pull_request', score: 0.5556, receipts: 1, issuers: 1, weight: 0.5, taskBound: 0 };

describe('trust scoring: GET /v1/trust', () => {
  let app: TestApp;
  const clock = new TestClock();
  let subject: Party;
  let reviewer: Party;
  let reviewerSibling: Party;
  let auditor: Party;
  let unclaimed: Party;
  let subjectSibling: Party;

  /** An owned agent with a key of its own; its slug is the name receipts use for it. */
  async function ownedParty(token: string): Promise<Party> {
    const key = newAgentKey();
    const agent = await registerAgent(app, token, { pubkey: key.pubkey });
    return { agent: agent.slug, key };
  }

  before(async () => {
    app = await startTestApp({}, { clock });
    const [p1, p2, p3] = [await app.signup(), await app.signup(), await app.signup()];
    subject = await ownedParty(p3.token);
    subjectSibling = await ownedParty(p3.token);
    reviewer = await ownedParty(p1.token);
    reviewerSibling = await ownedParty(p1.token);
    auditor = await ownedParty(p2.token);
    const provisional = await registerProvisional(app);
    const slug = (await app.request({ method: 'GET', url: `/v1/agents/${provisional.id}` })).json().data.slug;
    unclaimed = { agent: slug, key: provisional.key };
  });
  after(() => app.close());

  const submit = async (receipt: unknown) => {
    const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().data;
  };
  const trust = async (party: Party): Promise<ClassTrust[]> => {
    const response = await app.request({ method: 'GET', url: `/v1/trust?pubkey=${encodeURIComponent(party.key.pubkey)}` });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().data.pubkey, party.key.pubkey);
    return response.json().data.classes;
  };
  const outcome = (issuer: Party, result: string, overrides: Record<string, unknown> = {}) =>
    makeReceipt('outcome', issuer, subject, { payload: { outcome: result, latencyMs: 100 }, ...overrides });

  it('a key without evidence has no classes', async () => {
    assert.deepEqual(await trust(subject), []);
  });

  it('one success from a registered issuer moves trust only a little above the prior (small samples are damped)', async () => {
    const counted = await submit(outcome(reviewer, 'success'));
    assert.equal(counted.counts, true);
    assert.equal(counted.countsReason, null);
    assert.deepEqual(await trust(subject), [ONE_UNBOUND_SUCCESS]);
  });

  it('ignores unverified, self-issued, unregistered, misnamed and same-owner receipts, and offers/decisions, and says so when each arrives', async () => {
    /** Submits a receipt and checks its acknowledgement says whether it counts, in `data` and in the message. */
    const expectCounts = async (receipt: unknown, reason: string | null) => {
      const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
      assert.equal(response.statusCode, 201, response.body);
      const { data, message } = response.json();
      assert.equal(data.counts, reason === null, `${message}`);
      assert.equal(data.countsReason, reason);
      if (reason === null) assert.match(message, /counts towards the subject's trust/);
      else assert.ok(message.endsWith(`does not count towards trust: ${reason}`), message);
      return data;
    };
    const forged = outcome(auditor, 'failure');
    forged.signature.value = outcome(reviewer, 'failure').signature.value;
    assert.equal((await expectCounts(forged, 'signature not verified')).signatureVerified, false);
    await expectCounts(makeReceipt('outcome', subject, subject, { payload: { outcome: 'success', latencyMs: 1 } }), 'issuer is the subject');
    await expectCounts(outcome({ agent: 'stranger', key: newAgentKey() }, 'failure'), 'issuer key not registered');
    await expectCounts(outcome({ agent: 'not-the-registered-name', key: auditor.key }, 'failure'), 'issuer key not registered');
    await expectCounts(outcome(subjectSibling, 'success'), "issuer owned by the subject's owner");
    await expectCounts(makeReceipt('offer', auditor, subject), 'not an outcome');
    await expectCounts(makeReceipt('decision', auditor, subject), 'not an outcome');
    // Sent again, the acknowledgement still says why.
    const again = makeReceipt('decision', auditor, subject);
    await expectCounts(again, 'not an outcome');
    const repeated = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: again });
    assert.equal(repeated.statusCode, 200);
    assert.equal(repeated.json().data.countsReason, 'not an outcome');
    assert.match(repeated.json().message, /already stored; it does not count towards trust: not an outcome$/);
    assert.deepEqual(await trust(subject), [ONE_UNBOUND_SUCCESS]);

    const listed = await app.request({
      method: 'GET',
      url: `/v1/trust-receipts?subjectPubkey=${encodeURIComponent(subject.key.pubkey)}&kind=outcome&limit=100`,
    });
    const flags = listed.json().data.map((r: { issuer: { agent: string }; issuerRegistered: boolean }) => [r.issuer.agent, r.issuerRegistered]);
    assert.ok(flags.some(([agent, registered]: [string, boolean]) => agent === 'stranger' && registered === false));
    assert.ok(flags.some(([agent, registered]: [string, boolean]) => agent === reviewer.agent && registered === true));
  });

  it("names a receipt's issuer by the public agent that proved its key, never by the name the signer wrote", async () => {
    const holder = await app.signup();
    const key = newAgentKey();
    const agent = await registerAgent(app, holder.token, { name: `Key Holder ${process.pid}`, pubkey: key.pubkey });
    // Someone else registers a copy of the same key without proving it.
    await registerAgent(app, (await app.signup()).token, { name: `Impostor ${process.pid}`, pubkey: key.pubkey });
    const receipt = await submit(outcome({ agent: 'Totally Trusted Corp', key }, 'success'));
    const holderOf = async () => {
      const listed = await app.request({ method: 'GET', url: `/v1/trust-receipts?correlationId=${receipt.correlationId}` });
      const [row] = listed.json().data;
      assert.equal(row.issuer.agent, 'Totally Trusted Corp');
      return row.issuerKeyHolder;
    };
    assert.equal(await holderOf(), null, 'no agent proved the key yet');
    await proveKey(app, holder.token, agent.id, key);
    assert.deepEqual(await holderOf(), { id: agent.id, slug: agent.slug, name: `Key Holder ${process.pid}` });
  });

  it('expired receipts stop counting once they expire', async () => {
    await submit(outcome(auditor, 'failure', { expiresAt: '2026-11-21T12:30:00Z' }));
    const before = await trust(subject);
    assert.equal(before[0]?.issuers, 2);
    assert.ok((before[0]?.score ?? 1) < ONE_UNBOUND_SUCCESS.score);
    clock.advance(60 * 60 * 1000);
    assert.deepEqual(await trust(subject), [ONE_UNBOUND_SUCCESS]);
  });

  it('the background sweep of expired receipts changes no score, before or after they expire', async () => {
    const expiresAt = new Date(clock.now().getTime() + 10 * 60 * 1000).toISOString();
    await submit(outcome(auditor, 'failure', { expiresAt }));
    const counted = await trust(subject);
    assert.equal(counted[0]?.issuers, 2);
    await app.trustEvidenceSweep.sweep();
    assert.deepEqual(await trust(subject), counted);

    clock.advance(11 * 60 * 1000);
    const expired = [ONE_UNBOUND_SUCCESS];
    assert.deepEqual(await trust(subject), expired);
    await app.trustEvidenceSweep.sweep();
    assert.deepEqual(await trust(subject), expired);
  });

  it('caps one party: a flood from one owner, across its agents, counts at most 3 receipts (1.5 about no task)', async () => {
    for (let i = 0; i < 12; i++) await submit(outcome(i % 2 ? reviewer : reviewerSibling, 'success'));
    const [entry] = await trust(subject);
    assert.equal(entry?.receipts, 13);
    assert.equal(entry?.issuers, 1);
    assert.equal(entry?.weight, 1.5);
    assert.equal(entry?.score, Math.round(((0.5 * 4 + 1.5) / 5.5) * 10000) / 10000);
  });

  it("an unclaimed issuer counts half an owner's receipt, and independent parties add up", async () => {
    for (let i = 0; i < 5; i++) await submit(outcome(unclaimed, 'failure'));
    await submit(outcome(auditor, 'partial'));
    const [entry] = await trust(subject);
    assert.equal(entry?.issuers, 3);
    assert.equal(entry?.weight, 1.5 + 0.75 + 0.5);
    // reviewer 1.5 x 1, unclaimed 0.75 x 0, auditor 0.5 x 0.5, prior 4 x 0.5
    assert.equal(entry?.score, Math.round(((2 + 1.5 + 0 + 0.25) / (4 + 2.75)) * 10000) / 10000);
  });

  it('trust is per task class', async () => {
    await submit(outcome(auditor, 'failure', { taskClass: 'data.clean' }));
    const classes = await trust(subject);
    assert.deepEqual(
      classes.map((c) => c.taskClass),
      ['code.review.pull_request', 'data.clean'],
    );
    assert.equal(classes[1]?.score, Math.round((2 / 4.5) * 10000) / 10000);
  });

  it('refuses a missing or malformed key', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/trust' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/trust?pubkey=ed25519%3Axyz' }), 400, 'BAD_REQUEST');
  });
});

describe('trust scoring: which registered agent a receipt names', () => {
  let app: TestApp;
  after(() => app?.close());

  it('an issuer named by its id is that agent, even when someone else registered its key under a name equal to that id', async () => {
    app = await startTestApp();
    const [alice, bob, mallory] = [await app.signup(), await app.signup(), await app.signup()];
    const issuerKey = newAgentKey();
    const subjectKey = newAgentKey();
    const issuer = await registerAgent(app, alice.token, { pubkey: issuerKey.pubkey });
    const subject = await registerAgent(app, bob.token, { pubkey: subjectKey.pubkey });
    // Copies of both keys: a name that is the issuer's id becomes a slug equal to it, and owning an
    // agent under the subject's key makes Mallory's agents' receipts about it self-dealing.
    const impostor = await registerAgent(app, mallory.token, { name: issuer.id, pubkey: issuerKey.pubkey });
    assert.equal(impostor.slug, issuer.id);
    await registerAgent(app, mallory.token, { pubkey: subjectKey.pubkey });
    // An update moves the issuer's row behind the impostor's in PostgreSQL's heap order.
    const patched = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${issuer.id}`,
      token: alice.token,
      body: { description: 'Reviews pull requests, now faster' },
    });
    assert.equal(patched.statusCode, 200, patched.body);

    for (let i = 0; i < 3; i++) {
      const receipt = makeReceipt('outcome', { agent: issuer.id, key: issuerKey }, { agent: subject.slug, key: subjectKey });
      assert.equal((await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt })).statusCode, 201);
    }
    const response = await app.request({ method: 'GET', url: `/v1/trust?pubkey=${encodeURIComponent(subjectKey.pubkey)}` });
    const [entry] = response.json().data.classes as ClassTrust[];
    assert.equal(entry?.receipts, 3);
    assert.equal(entry?.issuers, 1);
  });
});
