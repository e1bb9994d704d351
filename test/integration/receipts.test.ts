import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { newAgentKey } from '../helpers/agents.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/receipts.json', import.meta.url), 'utf8'));
const vector = (name: string) => structuredClone(vectors.receipts.find((v: { name: string }) => v.name === name).receipt);

describe('trust receipts: the shared vectors', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({}, { clock: new TestClock() });
  });
  after(() => app.close());

  for (const testCase of vectors.receipts as { name: string; receipt: unknown; expect: { status: number; signatureVerified?: boolean; code?: string } }[]) {
    it(`${testCase.name}: ${testCase.expect.status}${testCase.expect.signatureVerified === undefined ? '' : `, signatureVerified ${testCase.expect.signatureVerified}`}`, async () => {
      const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: testCase.receipt });
      if (testCase.expect.code) {
        expectError(response, testCase.expect.status, testCase.expect.code);
        return;
      }
      assert.equal(response.statusCode, testCase.expect.status, response.body);
      const body = response.json();
      assert.equal(body.data.signatureVerified, testCase.expect.signatureVerified);
      assert.equal(body.data.receiptId, (testCase.receipt as { receiptId: string }).receiptId);
      assert.equal(typeof body.data.id, 'string');
      assert.equal(typeof body.message, 'string');
    });
  }

  const chainOf = async (correlationId: string) => {
    const response = await app.request({ method: 'GET', url: `/v1/trust-receipts/chain/${correlationId}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data;
  };

  it('the chain of the valid vectors is complete, each slot holding its vector', async () => {
    const data = await chainOf(vector('valid-outcome').correlationId);
    assert.equal(data.complete, true);
    assert.equal(data.offer.receiptId, vector('valid-offer').receiptId);
    assert.equal(data.decision.receiptId, vector('valid-decision').receiptId);
    assert.equal(data.outcome.receiptId, vector('valid-outcome').receiptId);
    for (const slot of [data.offer, data.decision, data.outcome]) assert.equal(slot.signatureVerified, true);
  });

  it('an outcome whose signature does not verify is stored but never fills a slot, even when it is the earliest', async () => {
    const tampered = vector('tampered-payload');
    const own = await chainOf(tampered.correlationId);
    assert.equal(own.outcome, null);
    assert.equal(own.complete, false);

    const validChain = vector('valid-outcome').correlationId;
    const forged = { ...tampered, receiptId: randomUUID(), correlationId: validChain, issuedAt: '2026-10-31T10:00:00Z' };
    const posted = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: forged });
    assert.equal(posted.statusCode, 201, posted.body);
    assert.equal(posted.json().data.signatureVerified, false);
    assert.equal((await chainOf(validChain)).outcome.receiptId, vector('valid-outcome').receiptId);
  });
});

describe('trust receipts: validation', () => {
  let app: TestApp;
  const issuer: Party = { agent: 'issuer-bot', key: newAgentKey() };
  const subject: Party = { agent: 'subject-bot', key: newAgentKey() };
  before(async () => {
    app = await startTestApp({}, { clock: new TestClock() });
  });
  after(() => app.close());

  const post = (body: unknown) => app.request({ method: 'POST', url: '/v1/trust-receipts', body });
  const rejects = async (body: unknown, path?: string) => {
    const error = expectError(await post(body), 400, 'BAD_REQUEST');
    if (path)
      assert.ok(
        error.details?.some((d) => d.path.startsWith(path)) || error.message.includes(path.split('/').pop() as string),
        `${path} in ${JSON.stringify(error)}`,
      );
    return error;
  };

  it('accepts each kind with its payload, including core and x- reason codes and x- extension members', async () => {
    for (const receipt of [
      makeReceipt('offer', issuer, subject),
      makeReceipt('decision', issuer, subject, { payload: { decision: 'decline', reasonCode: 'capacity_exceeded' } }),
      makeReceipt('decision', issuer, subject, { payload: { decision: 'accept' } }),
      makeReceipt('outcome', issuer, subject, { payload: { outcome: 'rolled_back', latencyMs: 12.5, 'x-note': { any: 'thing' } } }),
      makeReceipt('outcome', issuer, subject, { expiresAt: undefined }),
    ]) {
      const response = await post(receipt);
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().data.signatureVerified, true);
    }
  });

  it('refuses unknown kinds, versions and missing envelope fields', async () => {
    await rejects(makeReceipt('offer', issuer, subject, { kind: 'review' }), '/body/kind');
    await rejects(makeReceipt('offer', issuer, subject, { version: '2025-01-01' }), '/body/version');
    for (const field of ['kind', 'version', 'receiptId', 'correlationId', 'issuedAt', 'taskClass', 'issuer', 'subject', 'signature', 'payload']) {
      const receipt: Record<string, unknown> = makeReceipt('offer', issuer, subject);
      delete receipt[field];
      await rejects(receipt, `/body/${field}`);
    }
    await rejects({ ...makeReceipt('offer', issuer, subject), extra: 1 }, '/body/extra');
  });

  it('refuses malformed ids, times, task classes, keys and signatures', async () => {
    await rejects(makeReceipt('offer', issuer, subject, { receiptId: 'not-a-uuid' }), '/body/receiptId');
    await rejects(makeReceipt('offer', issuer, subject, { correlationId: 42 }), '/body/correlationId');
    await rejects(makeReceipt('offer', issuer, subject, { issuedAt: 'yesterday' }), '/body/issuedAt');
    await rejects(makeReceipt('offer', issuer, subject, { taskClass: 'code..review' }), '/body/taskClass');
    await rejects(makeReceipt('offer', issuer, subject, { issuer: { agent: 'x', pubkey: 'ed25519:AAAA' } }), 'issuer.pubkey');
    await rejects(makeReceipt('offer', issuer, subject, { subject: { agent: 'x', pubkey: 'rsa:abc' } }), 'subject.pubkey');
    const shortSignature = makeReceipt('offer', issuer, subject);
    shortSignature.signature.value = Buffer.alloc(63).toString('base64');
    await rejects(shortSignature, '/body/signature/value');
    const otherAlg = makeReceipt('offer', issuer, subject);
    otherAlg.signature.alg = 'ES256';
    await rejects(otherAlg, '/body/signature/alg');
  });

  it('refuses bad payloads per kind', async () => {
    await rejects(
      makeReceipt('offer', issuer, subject, { payload: { taskClass: 'code.review.pull_request', requiredScopes: 'repo', promisedSlaMs: 1 } }),
      '/body/payload/requiredScopes',
    );
    await rejects(
      makeReceipt('offer', issuer, subject, { payload: { taskClass: 'code.review.pull_request', requiredScopes: [], promisedSlaMs: -1 } }),
      '/body/payload/promisedSlaMs',
    );
    await rejects(
      makeReceipt('offer', issuer, subject, { payload: { taskClass: 'other.class', requiredScopes: [], promisedSlaMs: 1 } }),
      '/body/payload/taskClass',
    );
    await rejects(makeReceipt('decision', issuer, subject, { payload: { decision: 'accept', reasonCode: 'because' } }), '/body/payload/reasonCode');
    await rejects(makeReceipt('decision', issuer, subject, { payload: { reasonCode: 'x-ok' } }), '/body/payload/decision');
    await rejects(makeReceipt('outcome', issuer, subject, { payload: { outcome: 'great', latencyMs: 1 } }), '/body/payload/outcome');
    await rejects(
      makeReceipt('outcome', issuer, subject, { payload: { outcome: 'success', latencyMs: 1, artifactHash: 'md5:abc' } }),
      '/body/payload/artifactHash',
    );
    await rejects(
      makeReceipt('outcome', issuer, subject, { payload: { outcome: 'success', latencyMs: 1, artifactHash: `sha256:${'A'.repeat(64)}` } }),
      '/body/payload/artifactHash',
    );
    await rejects(
      makeReceipt('outcome', issuer, subject, { payload: { outcome: 'success', latencyMs: 1, artifactUrl: 'ftp://x' } }),
      '/body/payload/artifactUrl',
    );
    await rejects(makeReceipt('outcome', issuer, subject, { payload: { outcome: 'success', latencyMs: 1, unknown: true } }), '/body/payload/unknown');
  });

  it('refuses expired receipts, expiry before issue, and issue times in the future', async () => {
    const expired = expectError(await post(makeReceipt('offer', issuer, subject, { expiresAt: '2026-11-21T11:59:59Z' })), 400, 'BAD_REQUEST');
    assert.match(expired.message, /expired/);
    await rejects(makeReceipt('offer', issuer, subject, { issuedAt: '2026-11-21T11:00:00Z', expiresAt: '2026-11-21T10:00:00Z' }), '/body/expiresAt');
    await rejects(makeReceipt('offer', issuer, subject, { issuedAt: '2026-11-21T13:00:00Z' }), '/body/issuedAt');
  });

  it('refuses duplicate JSON keys and numbers JavaScript cannot hold exactly, even when signed', async () => {
    const receipt = makeReceipt('outcome', issuer, subject);
    const text = JSON.stringify(receipt);
    const duplicated = text.replace('"kind":"outcome"', '"kind":"offer","kind":"outcome"');
    assert.match((await rejectsRaw(duplicated)).message, /Duplicate key "kind"/);
    const nestedDuplicate = text.replace('"outcome":"success"', '"outcome":"failure","outcome":"success"');
    assert.match((await rejectsRaw(nestedDuplicate)).message, /Duplicate key/);
    const unsafe = text.replace('"latencyMs":420', '"latencyMs":9007199254740993');
    assert.match((await rejectsRaw(unsafe)).message, /2\^53/);
    const tooPrecise = text.replace('"latencyMs":420', '"latencyMs":0.12345678901234567891');
    assert.match((await rejectsRaw(tooPrecise)).message, /precision/);
    const overflow = text.replace('"latencyMs":420', '"latencyMs":1e400');
    assert.match((await rejectsRaw(overflow)).message, /out of range/);
    expectError(await app.request({ method: 'POST', url: '/v1/trust-receipts', rawBody: '{"kind":' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/trust-receipts', rawBody: '[]' }), 400, 'BAD_REQUEST');
    // Nested deeper than any receipt needs (10 KB of brackets, under the body limit): a 400, not a crash.
    assert.match((await rejectsRaw('['.repeat(5_000) + ']'.repeat(5_000))).message, /too deep/);
  });

  async function rejectsRaw(rawBody: string) {
    return expectError(await app.request({ method: 'POST', url: '/v1/trust-receipts', rawBody }), 400, 'BAD_REQUEST');
  }

  it('stores a receipt that does not verify, flagged, and says so', async () => {
    const receipt = makeReceipt('outcome', issuer, subject);
    receipt.signature.value = makeReceipt('outcome', subject, issuer).signature.value;
    const response = await post(receipt);
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().data.signatureVerified, false);
    assert.equal(response.json().data.countsReason, 'signature not verified');
    assert.match(response.json().message, /signature did not verify; it does not count towards trust: signature not verified$/);
  });

  it('a body over 64 KiB is 413', async () => {
    const receipt = makeReceipt('outcome', issuer, subject, { payload: { outcome: 'success', latencyMs: 1, 'x-pad': 'a'.repeat(70_000) } });
    expectError(await post(receipt), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('trust receipts: idempotency', () => {
  let app: TestApp;
  const issuer: Party = { agent: 'issuer-bot', key: newAgentKey() };
  const subject: Party = { agent: 'subject-bot', key: newAgentKey() };
  before(async () => {
    app = await startTestApp({}, { clock: new TestClock() });
  });
  after(() => app.close());

  it('the same receiptId with the same content answers 200 and the stored acknowledgement; different content 409', async () => {
    const receipt = makeReceipt('offer', issuer, subject);
    const first = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(first.statusCode, 201);
    const again = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json().data, first.json().data);
    // Key order and whitespace are not content.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(receipt).reverse()), null, 2);
    assert.equal((await app.request({ method: 'POST', url: '/v1/trust-receipts', rawBody: reordered })).statusCode, 200);

    const changed = makeReceipt('offer', issuer, subject, {
      receiptId: receipt.receiptId,
      correlationId: receipt.correlationId,
      issuedAt: '2026-11-21T11:30:00Z',
    });
    expectError(await app.request({ method: 'POST', url: '/v1/trust-receipts', body: changed }), 409, 'CONFLICT');
    const listed = await app.request({ method: 'GET', url: `/v1/trust-receipts?correlationId=${receipt.correlationId}` });
    assert.equal(listed.json().pagination.total, 1);
    assert.equal(listed.json().data[0].issuedAt, '2026-11-21T11:00:00Z');
  });

  it('concurrent submissions of one receipt store it once', async () => {
    const receipt = makeReceipt('outcome', issuer, subject);
    const responses = await Promise.all(Array.from({ length: 20 }, () => app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt })));
    const statuses = responses.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [...Array(19).fill(200), 201].sort());
    assert.equal(new Set(responses.map((r) => r.json().data.id)).size, 1);
  });
});

describe('trust receipts: queries and chains', () => {
  let app: TestApp;
  const issuer: Party = { agent: 'issuer-bot', key: newAgentKey() };
  const subject: Party = { agent: 'subject-bot', key: newAgentKey() };
  const other: Party = { agent: 'other-bot', key: newAgentKey() };
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
  });
  after(() => app.close());

  const post = async (receipt: unknown) => {
    const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(response.statusCode, 201, response.body);
    clock.advance(1000);
  };

  it('a chain completes receipt by receipt, and unverified receipts never fill a slot', async () => {
    const correlationId = randomUUID();
    const chain = async () => (await app.request({ method: 'GET', url: `/v1/trust-receipts/chain/${correlationId}` })).json().data;
    assert.deepEqual(await chain(), { correlationId, offer: null, decision: null, outcome: null, complete: false });

    await post(makeReceipt('offer', issuer, subject, { correlationId }));
    let view = await chain();
    assert.equal(view.offer.kind, 'offer');
    assert.equal(view.offer.signatureVerified, true);
    assert.equal(typeof view.offer.receivedAt, 'string');
    assert.equal(view.complete, false);

    await post(makeReceipt('decision', subject, issuer, { correlationId }));
    const forged = makeReceipt('outcome', issuer, subject, { correlationId });
    forged.signature.value = makeReceipt('outcome', other, subject).signature.value;
    await post(forged);
    view = await chain();
    assert.equal(view.decision.kind, 'decision');
    assert.equal(view.outcome, null);
    assert.equal(view.complete, false);

    await post(makeReceipt('outcome', issuer, subject, { correlationId }));
    view = await chain();
    assert.equal(view.complete, true);
    assert.equal(view.outcome.signatureVerified, true);
  });

  it('the chain takes the earliest verified receipt of each kind', async () => {
    const correlationId = randomUUID();
    const late = makeReceipt('offer', issuer, subject, { correlationId, issuedAt: '2026-11-21T11:30:00Z' });
    const early = makeReceipt('offer', issuer, subject, { correlationId, issuedAt: '2026-11-21T10:30:00+00:00' });
    await post(late);
    await post(early);
    const { data } = (await app.request({ method: 'GET', url: `/v1/trust-receipts/chain/${correlationId}` })).json();
    assert.equal(data.offer.receiptId, early.receiptId);
  });

  it('a flood of one kind never crowds another out of the chain', async () => {
    const correlationId = randomUUID();
    await post(makeReceipt('decision', subject, issuer, { correlationId, issuedAt: '2026-11-21T11:59:00Z' }));
    // Earlier offers than the decision, more than any one page of receipts.
    const offers = Array.from({ length: 510 }, (_, i) =>
      makeReceipt('offer', other, subject, { correlationId, issuedAt: new Date(Date.parse('2026-11-21T10:00:00Z') + i * 1000).toISOString() }),
    );
    for (let i = 0; i < offers.length; i += 50) {
      const answers = await Promise.all(offers.slice(i, i + 50).map((offer) => app.request({ method: 'POST', url: '/v1/trust-receipts', body: offer })));
      assert.ok(answers.every((answer) => answer.statusCode === 201));
    }
    const { data } = (await app.request({ method: 'GET', url: `/v1/trust-receipts/chain/${correlationId}` })).json();
    assert.equal(data.offer.receiptId, offers[0]!.receiptId);
    assert.equal(data.decision.kind, 'decision');
  });

  it('an invalid correlation id is 400', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/trust-receipts/chain/nope' }), 400, 'BAD_REQUEST');
  });

  it('lists by subject key (URL-encoded, any base64 spelling) with every filter, newest first, paginated', async () => {
    const subjectKey = newAgentKey();
    const target: Party = { agent: 'target-bot', key: subjectKey };
    await post(makeReceipt('offer', issuer, target, { taskClass: 'data.clean' }));
    await post(makeReceipt('decision', issuer, target, { taskClass: 'data.clean' }));
    await post(makeReceipt('outcome', issuer, target, { taskClass: 'data.clean' }));
    await post(makeReceipt('outcome', issuer, target, { taskClass: 'code.review.pull_request' }));
    await post(makeReceipt('outcome', issuer, subject));

    const list = async (query: string) => {
      const response = await app.request({ method: 'GET', url: `/v1/trust-receipts?${query}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    const encoded = encodeURIComponent(subjectKey.pubkey);
    let page = await list(`subjectPubkey=${encoded}`);
    assert.equal(page.pagination.total, 4);
    assert.deepEqual(page.pagination, { limit: 20, offset: 0, total: 4, hasMore: false });
    assert.deepEqual(
      page.data.map((r: { kind: string }) => r.kind),
      ['outcome', 'outcome', 'decision', 'offer'],
    );
    assert.equal(page.data[0].subject.pubkey, subjectKey.pubkey);
    assert.equal(page.data[0].issuerRegistered, false);

    const urlSafe = encodeURIComponent(subjectKey.pubkey.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
    assert.equal((await list(`subjectPubkey=${urlSafe}`)).pagination.total, 4);
    assert.equal((await list(`subjectPubkey=${encoded}&taskClass=data.clean`)).pagination.total, 3);
    assert.equal((await list(`subjectPubkey=${encoded}&kind=outcome`)).pagination.total, 2);
    assert.equal((await list(`subjectPubkey=${encoded}&kind=outcome&taskClass=data.clean`)).pagination.total, 1);

    page = await list(`subjectPubkey=${encoded}&limit=3`);
    assert.equal(page.data.length, 3);
    assert.equal(page.pagination.hasMore, true);
    const rest = await list(`subjectPubkey=${encoded}&limit=3&offset=3`);
    assert.equal(rest.data.length, 1);
    assert.equal(rest.pagination.hasMore, false);
    assert.equal(new Set([...page.data, ...rest.data].map((r: { receiptId: string }) => r.receiptId)).size, 4);
  });

  it('list needs subjectPubkey or correlationId, and refuses bad filters', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/trust-receipts' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/trust-receipts?taskClass=data.clean' }), 400, 'BAD_REQUEST');
    const encoded = encodeURIComponent(subject.key.pubkey);
    expectError(await app.request({ method: 'GET', url: `/v1/trust-receipts?subjectPubkey=${encoded}&limit=101` }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: `/v1/trust-receipts?subjectPubkey=${encoded}&limit=0` }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: `/v1/trust-receipts?subjectPubkey=${encoded}&kind=review` }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/trust-receipts?subjectPubkey=ed25519%3Anope' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/trust-receipts?correlationId=123' }), 400, 'BAD_REQUEST');
  });
});
