/**
 * The receipt log over HTTP: acknowledgements gain their log index once sequenced, proofs verify
 * offline with the keys the service lists, tiles and entry bundles match, consistency proofs hold
 * between checkpoints, receipts stored before the log existed are logged in received order, one
 * sequencer at a time, and a tree inconsistent with the signed one is never signed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import {
  checkInclusion,
  generateSignerKey,
  hashLeaf,
  parseSignerKey,
  parseTlogProof,
  verifyCheckpoint,
  verifyConsistency,
  verifyReceiptProof,
} from '@agentry/sdk/tlog';
import { buildApp } from '../../src/app.ts';
import { canonicalForms } from '../../src/modules/receipts/service.ts';
import { newTimeOrderedId } from '../../src/lib/ids.ts';
import { storedHashIndex } from '../../src/modules/tlog/merkle.ts';
import { expectError, otherNode, startTestApp, startTestAppAfter, testDatabaseUrl, type TestApp } from '../helpers/app.ts';
import { newAgentKey } from '../helpers/agents.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';
import { waitFor } from '../helpers/wait.ts';

const PUBLIC_URL = 'https://trust.example.test/agentry';
const ORIGIN = 'trust.example.test/agentry/receipts';
const issuer: Party = { agent: 'issuer', key: newAgentKey() };
const subject: Party = { agent: 'subject', key: newAgentKey() };

const keysOf = async (app: TestApp) => {
  const response = await app.request({ method: 'GET', url: '/.tlog/keys' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
  // The receipt log's keys: the registry log's own key (made beside it) is another log's.
  return response.body.split('\n').filter((key) => key !== '' && !/\/registry\+/.test(key));
};
const checkpointOf = async (app: TestApp) => {
  const response = await app.request({ method: 'GET', url: '/.tlog/receipts/checkpoint' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
  return response.body;
};
const post = async (app: TestApp, receipt: unknown) => {
  const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
  assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body);
  return response.json().data as { id: string; receiptId: string; signatureVerified: boolean; logIndex: number | null };
};

describe('receipt log: proofs, tiles, keys and consistency', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ PUBLIC_URL });
    // Sequenced only when a test drains, so a receipt is seen waiting.
    await app.receiptSequencer.stop();
  });
  after(() => app.close());

  it('serves a signed checkpoint of the empty tree from the first start, under a key named after the origin', async () => {
    const keys = await keysOf(app);
    assert.equal(keys.length, 1);
    assert.match(keys[0]!, /^trust\.example\.test\/agentry\/receipts\+[0-9a-f]{8}\+[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]=?$/);
    const checkpoint = verifyCheckpoint(await checkpointOf(app), keys, ORIGIN);
    assert.equal(checkpoint.size, 0);
    assert.equal(checkpoint.root.toString('base64'), '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });

  const logged: { receipt: ReturnType<typeof makeReceipt>; ack: { id: string; logIndex: number | null } }[] = [];
  let firstCheckpoint = '';

  it('a verified receipt waits (202, Retry-After) until sequenced, then its proof verifies offline; unverified and unknown are 404', async () => {
    const receipt = makeReceipt('outcome', issuer, subject);
    const ack = await post(app, receipt);
    assert.equal(ack.signatureVerified, true);
    assert.equal(ack.logIndex, null);
    const waiting = await app.request({ method: 'GET', url: `/v1/trust-receipts/${ack.id}/proof` });
    assert.equal(waiting.statusCode, 202, waiting.body);
    assert.match(String(waiting.headers['retry-after']), /^[1-9][0-9]*$/);

    const forged = { ...makeReceipt('outcome', issuer, subject), payload: { outcome: 'failure', latencyMs: 1 } };
    const unverified = await post(app, forged);
    assert.equal(unverified.signatureVerified, false);
    assert.equal(unverified.logIndex, null);

    assert.equal(await app.receiptSequencer.drain(), 1);
    firstCheckpoint = await checkpointOf(app);

    for (const id of [ack.id, receipt.receiptId, receipt.receiptId.toUpperCase()]) {
      const response = await app.request({ method: 'GET', url: `/v1/trust-receipts/${id}/proof` });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
      assert.match(response.body, /^c2sp\.org\/tlog-proof@v1\nextra [A-Za-z0-9+/=]+\nindex 0\n\ntrust\.example\.test\/agentry\/receipts\n1\n/);
      const verified = verifyReceiptProof(response.body, { keys: await keysOf(app), origin: ORIGIN, receipt: Buffer.from(canonicalForms(receipt).stored) });
      assert.equal(verified.index, 0);
      assert.equal(verified.receipt.receiptId, receipt.receiptId);
    }
    assert.equal((await post(app, receipt)).logIndex, 0, 'the acknowledgement of a stored receipt names its index');
    expectError(await app.request({ method: 'GET', url: `/v1/trust-receipts/${unverified.id}/proof` }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/trust-receipts/${randomUUID()}/proof` }), 404, 'NOT_FOUND');
    logged.push({ receipt, ack });
  });

  it('every verified receipt is logged once, in received order; a repeat is not logged again', async () => {
    for (let i = 0; i < 5; i++) {
      const receipt = makeReceipt('offer', issuer, subject);
      logged.push({ receipt, ack: await post(app, receipt) });
    }
    await post(app, logged[2]!.receipt);
    assert.equal(await app.receiptSequencer.drain(), 5);
    for (const [index, { ack }] of logged.entries()) {
      const proof = await app.request({ method: 'GET', url: `/v1/trust-receipts/${ack.id}/proof` });
      assert.equal(parseTlogProof(proof.body).index, index);
    }
    assert.equal(verifyCheckpoint(await checkpointOf(app), await keysOf(app)).size, 6);
  });

  it('tiles and entry bundles hold the leaf hashes and entries; full tiles are immutable, missing ones 404', async () => {
    const tile = await app.request({ method: 'GET', url: '/.tlog/receipts/tile/0/000.p/6' });
    assert.equal(tile.statusCode, 200);
    assert.equal(tile.headers['content-type'], 'application/octet-stream');
    const bundle = await app.request({ method: 'GET', url: '/.tlog/receipts/tile/entries/000.p/6' });
    assert.equal(bundle.statusCode, 200);
    const bytes = bundle.rawPayload;
    let at = 0;
    for (const [index, { receipt }] of logged.entries()) {
      const length = bytes.readUInt16BE(at);
      const entry = bytes.subarray(at + 2, at + 2 + length);
      at += 2 + length;
      assert.equal(entry.toString('utf8'), canonicalForms(receipt).stored);
      assert.deepEqual(tile.rawPayload.subarray(index * 32, index * 32 + 32), hashLeaf(entry));
    }
    assert.equal(at, bytes.length);
    const gzipped = await app.request({ method: 'GET', url: '/.tlog/receipts/tile/entries/000.p/6', headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(gzipped.statusCode, 200);
    assert.equal(gzipped.headers['content-encoding'], 'gzip', 'an entry bundle is compressed for a client that takes gzip');
    assert.match(String(gzipped.headers.vary), /accept-encoding/i);
    assert.deepEqual(gunzipSync(gzipped.rawPayload), bytes);
    assert.equal(bundle.headers['content-encoding'], undefined, 'and sent as is to one that does not');
    const earlier = await app.request({ method: 'GET', url: '/.tlog/receipts/tile/0/000.p/1' });
    assert.equal(earlier.statusCode, 200, 'a partial tile of an earlier checkpoint stays available');
    for (const url of [
      '/.tlog/receipts/tile/0/000',
      '/.tlog/receipts/tile/0/000.p/7',
      '/.tlog/receipts/tile/1/000.p/1',
      '/.tlog/receipts/tile/0/5',
      '/.tlog/receipts/tile/entries/x000/000',
    ])
      expectError(await app.request({ method: 'GET', url }), 404, 'NOT_FOUND');
  });

  it('consistency proofs: between checkpoints they verify; from 0 or equal sizes empty; backwards or beyond the size 400', async () => {
    const keys = await keysOf(app);
    const proof = await app.request({ method: 'GET', url: '/v1/log/receipts/consistency?from=1&to=6' });
    assert.equal(proof.statusCode, 200, proof.body);
    const { to } = verifyConsistency({ from: firstCheckpoint, to: await checkpointOf(app), proof: proof.json().data.proof, keys });
    assert.equal(to.size, 6);
    for (const query of ['from=0&to=6', 'from=6&to=6', 'from=0&to=0']) {
      const response = await app.request({ method: 'GET', url: `/v1/log/receipts/consistency?${query}` });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { data: { proof: [] } });
    }
    for (const query of ['from=5&to=4', 'from=1&to=7', 'from=-1&to=2', 'from=a&to=2', 'to=2', 'from=1&to=2&x=1'])
      expectError(await app.request({ method: 'GET', url: `/v1/log/receipts/consistency?${query}` }), 400, 'BAD_REQUEST');
  });

  it('refuses to sign a tree that is not consistent with the last signed checkpoint', async () => {
    const before = await checkpointOf(app);
    // A stored hash altered behind the service's back: the next tree would not extend the signed one.
    await sql`UPDATE tlog_hashes SET hash = ${Buffer.alloc(32)} WHERE log = 'receipts' AND idx = ${storedHashIndex(2, 0)}`.execute(app.database.db);
    await post(app, makeReceipt('offer', issuer, subject));
    await assert.rejects(app.receiptSequencer.sequenceOnce(true), /refusing to sign size 7/);
    assert.equal(await checkpointOf(app), before);
  });
});

describe('receipt log: two nodes sequence concurrently, each receipt once', { skip: testDatabaseUrl ? false : 'one node per SQLite database' }, () => {
  let app: TestApp;
  let node: TestApp;
  before(async () => {
    app = await startTestApp();
    node = await otherNode(app);
  });
  after(async () => {
    await node.close();
    await app.close();
  });

  it('both nodes sign with the one sealed key, and no index is given twice or skipped', async () => {
    assert.deepEqual(await keysOf(node), await keysOf(app));
    const acks = [];
    for (let i = 0; i < 40; i++) acks.push(await post(i % 2 ? node : app, makeReceipt('decision', issuer, subject)));
    await Promise.all([app.receiptSequencer.drain(), node.receiptSequencer.drain(), app.receiptSequencer.drain()]);
    await app.receiptSequencer.drain();
    const checkpoint = verifyCheckpoint(await checkpointOf(node), await keysOf(app));
    assert.equal(checkpoint.size, 40);
    const indexes = [];
    for (const ack of acks) {
      const proof = verifyReceiptProof((await app.request({ method: 'GET', url: `/v1/trust-receipts/${ack.id}/proof` })).body, { keys: await keysOf(app) });
      indexes.push(proof.index);
    }
    assert.deepEqual(
      indexes.sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, i) => i),
    );
  });
});

describe('receipt log: receipts stored before the upgrade', () => {
  let app: TestApp;
  const stored: { id: string; envelope: string; verified: boolean }[] = [];
  before(async () => {
    app = await startTestAppAfter('0021_task_status_events', async (db) => {
      const start = Date.parse('2026-01-01T00:00:00Z');
      for (let i = 0; i < 30; i++) {
        const receipt = makeReceipt('offer', issuer, subject);
        const envelope = canonicalForms(receipt).stored;
        const verified = i % 7 !== 3;
        // Received in an order other than the ids': the log follows received_at.
        const receivedAt = new Date(start + ((i * 11) % 30) * 1000).toISOString();
        const row = {
          id: newTimeOrderedId(),
          receipt_id: receipt.receiptId,
          correlation_id: receipt.correlationId,
          kind: 'offer',
          task_class: 'code.review.pull_request',
          issuer_agent: issuer.agent,
          issuer_pubkey: issuer.key.pubkey,
          subject_agent: subject.agent,
          subject_pubkey: subject.key.pubkey,
          issued_at: '2026-01-01T00:00:00.000Z',
          expires_at: null,
          signature_verified: verified ? 1 : 0,
          outcome_value: null,
          envelope,
          received_at: receivedAt,
        };
        await sql`INSERT INTO trust_receipts (id, receipt_id, correlation_id, kind, task_class, issuer_agent, issuer_pubkey, subject_agent, subject_pubkey, issued_at, expires_at, signature_verified, outcome_value, envelope, received_at)
          VALUES (${row.id}, ${row.receipt_id}, ${row.correlation_id}, ${row.kind}, ${row.task_class}, ${row.issuer_agent}, ${row.issuer_pubkey}, ${row.subject_agent}, ${row.subject_pubkey}, ${row.issued_at}, ${row.expires_at}, ${row.signature_verified}, ${row.outcome_value}, ${row.envelope}, ${row.received_at})`.execute(
          db,
        );
        stored.push({ id: row.id, envelope, verified, receivedAt } as never);
      }
    });
  });
  after(() => app.close());

  it('the first start logs every verified receipt already stored, in received order, and no unverified one', async () => {
    await app.receiptSequencer.drain();
    const expected = stored
      .filter((row) => row.verified)
      .sort((a, b) => ((a as never as { receivedAt: string }).receivedAt < (b as never as { receivedAt: string }).receivedAt ? -1 : 1));
    const keys = await keysOf(app);
    const checkpoint = verifyCheckpoint(await checkpointOf(app), keys);
    assert.equal(checkpoint.size, expected.length);
    for (const [index, row] of expected.entries()) {
      const proof = await app.request({ method: 'GET', url: `/v1/trust-receipts/${row.id}/proof` });
      const verified = verifyReceiptProof(proof.body, { keys, receipt: Buffer.from(row.envelope) });
      assert.equal(verified.index, index);
      assert.ok(checkInclusion(parseTlogProof(proof.body).proof, checkpoint.size, checkpoint.root, index, hashLeaf(Buffer.from(row.envelope))));
    }
    for (const row of stored.filter((candidate) => !candidate.verified))
      expectError(await app.request({ method: 'GET', url: `/v1/trust-receipts/${row.id}/proof` }), 404, 'NOT_FOUND');
  });
});

describe('receipt log: rotating the signing key', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await app.receiptSequencer.stop();
  });
  after(() => app.close());

  const nodeWith = (signer: ReturnType<typeof parseSignerKey>) =>
    buildApp(
      { ...app.config, receiptLog: { ...app.config.receiptLog, signer } },
      { logger: false, webRoot: null, ...(app.databaseSchema ? { databaseSchema: app.databaseSchema } : {}) },
    );

  it('a new LOG_SIGNING_KEY signs the same tree again; the old key stays listed; dropping the setting later refuses to start', async () => {
    await post(app, makeReceipt('offer', issuer, subject));
    await app.receiptSequencer.drain();
    const [generated] = await keysOf(app);
    const before = await checkpointOf(app);

    const next = generateSignerKey('localhost:8080/receipts-2026');
    const rotated = await nodeWith(parseSignerKey(next.signerKey));
    try {
      await rotated.receiptSequencer.stop();
      assert.deepEqual(await keysOf(app), [next.verifierKey, generated]);
      const resigned = await checkpointOf(app);
      assert.notEqual(resigned, before);
      assert.throws(() => verifyCheckpoint(resigned, [generated!]), /no signature by a trusted key/);
      const { size, root } = verifyCheckpoint(resigned, [next.verifierKey]);
      const old = verifyCheckpoint(before, [generated!]);
      assert.deepEqual({ size, root }, { size: old.size, root: old.root }, 'the same tree, signed with the new key');
    } finally {
      await rotated.close();
    }
    await assert.rejects(nodeWith(null), /set LOG_SIGNING_KEY again/);
  });
});

/** This process's receipt threads by the names they give themselves (Linux). */
const receiptThreads = () =>
  readdirSync('/proc/self/task')
    .map((tid) => {
      try {
        return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      } catch {
        return ''; // the thread ended between the listing and the read
      }
    })
    .filter((name) => ['agentry-verify', 'agentry-insert', 'agentry-tlog'].includes(name))
    .sort();

describe('receipt threads once idle', () => {
  it('stop, and the next receipt is verified, stored and logged by new ones', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const app = await startTestApp({ PUBLIC_URL, RECEIPT_LOG_INTERVAL_MS: '50' }, { idleWorkerStopMs: 200 });
    try {
      const loggedIndex = async (receipt: ReturnType<typeof makeReceipt>) =>
        waitFor(
          'the receipt to be logged',
          async () => (await post(app, receipt)).logIndex,
          (index) => index !== null,
        );

      const first = makeReceipt('outcome', issuer, subject);
      assert.equal((await post(app, first)).signatureVerified, true);
      assert.equal(await loggedIndex(first), 0);
      // On PostgreSQL only verification has a thread; inserts and the log's passes are the database's.
      await waitFor('the idle receipt threads to stop', receiptThreads, (names) => names.length === 0);

      const second = makeReceipt('outcome', issuer, subject);
      assert.equal((await post(app, second)).signatureVerified, true);
      assert.equal(await loggedIndex(second), 1);
    } finally {
      await app.close();
    }
  });
});
