/**
 * Checking the receipt log from outside, as a user would: the SDK fetches and verifies a receipt's
 * proof and consistency between checkpoints; `agentry log verify` checks a saved proof file offline
 * (and fails on a tampered one or a wrong key); `agentry log consistency` checks the log still
 * extends the checkpoint seen before; `agentry log keygen` makes a key the service accepts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AgentryClient, generateSignerKey, parseSignerKey, verifyConsistency, verifyReceiptProof } from '@agentry/sdk';
import { signNote } from '../../src/modules/tlog/keys.ts';
import { loadConfig } from '../../src/config.ts';
import { newAgentKey } from '../helpers/agents.ts';
import type { TestApp } from '../helpers/app.ts';
import { runAgentry } from '../helpers/cli.ts';
import { startListeningApp } from '../helpers/listening.ts';
import { makeReceipt } from '../helpers/receipts.ts';

const signing = generateSignerKey('localhost:8080/receipts');
const issuer = { agent: 'issuer', key: newAgentKey() };
const subject = { agent: 'subject', key: newAgentKey() };

describe('receipt log from the SDK and the CLI', () => {
  let app: TestApp;
  let url: string;
  let client: AgentryClient;
  const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-log-'));
  const env = { XDG_CONFIG_HOME: join(dir, 'config'), HOME: dir };
  const run = (...args: string[]) => runAgentry(args, env);
  const receipt = makeReceipt('outcome', issuer, subject);
  let ackId = '';

  before(async () => {
    ({ app, url } = await startListeningApp({ LOG_SIGNING_KEY: signing.signerKey }));
    await app.receiptSequencer.stop();
    client = new AgentryClient({ baseUrl: url });
    ackId = (await client.submitReceipt(receipt)).receipt.id;
  });
  after(() => app.close());

  test('SDK: the proof is null while pending, then verifies against the listed keys', async () => {
    assert.equal(await client.receiptProof(ackId), null);
    await app.receiptSequencer.drain();
    const proof = await client.receiptProof(receipt.receiptId);
    assert.ok(proof);
    const keys = await client.logKeys();
    const verified = verifyReceiptProof(proof, { keys, receipt });
    assert.equal(verified.index, 0);
    assert.throws(() => verifyReceiptProof(proof, { keys, receipt: { ...receipt, issuedAt: '2026-11-21T11:00:01Z' } }), /another entry/);
    writeFileSync(join(dir, 'receipt.tlog-proof'), proof);
    writeFileSync(join(dir, 'receipt.json'), JSON.stringify(receipt));
  });

  test('CLI: log verify checks the proof file offline; a tampered file, a wrong key or another receipt fail (exit 1)', async () => {
    const [key] = await client.logKeys();
    const ok = await run('log', 'verify', join(dir, 'receipt.tlog-proof'), '--key', key!, '--receipt', join(dir, 'receipt.json'));
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`^Proof verifies: receipt ${receipt.receiptId} is entry 0 of localhost:8080/receipts \\(size 1\\)\\.\\n$`));

    const text = readFileSync(join(dir, 'receipt.tlog-proof'), 'utf8');
    writeFileSync(join(dir, 'tampered.tlog-proof'), text.replace(/\n1\n/, '\n2\n'));
    const tampered = await run('--json', 'log', 'verify', join(dir, 'tampered.tlog-proof'), '--key', key!);
    assert.equal(tampered.code, 1);
    assert.equal(JSON.parse(tampered.stdout).verified, false);

    const otherKey = (await run('--json', 'log', 'keygen', 'localhost:8080/receipts')).stdout;
    const wrongKey = await run('log', 'verify', join(dir, 'receipt.tlog-proof'), '--key', JSON.parse(otherKey).verifierKey);
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stdout, /NOT verify: the note carries no signature by a trusted key/);

    writeFileSync(join(dir, 'other.json'), JSON.stringify(makeReceipt('offer', issuer, subject)));
    assert.equal((await run('log', 'verify', join(dir, 'receipt.tlog-proof'), '--key', key!, '--receipt', join(dir, 'other.json'))).code, 1);
    assert.equal((await run('log', 'verify', join(dir, 'missing.tlog-proof'), '--key', key!)).code, 2);
    assert.equal((await run('log', 'verify', join(dir, 'receipt.tlog-proof'))).code, 2, '--key is required');
  });

  test('SDK and CLI: the log grows consistently from the checkpoint seen before', async () => {
    const before = await client.logCheckpoint();
    for (let i = 0; i < 4; i++) await client.submitReceipt(makeReceipt('decision', issuer, subject));
    await app.receiptSequencer.drain();
    const keys = await client.logKeys();
    const after = await client.logCheckpoint();
    assert.equal(verifyConsistency({ from: before, to: after, proof: await client.logConsistency(1, 5), keys }).to.size, 5);

    // Size 1 was remembered when `log verify` checked the proof.
    const consistent = await run('--json', 'log', 'consistency', url, '--from', '1', '--key', keys[0]!);
    assert.equal(consistent.code, 0, consistent.stderr);
    assert.deepEqual(
      { ...JSON.parse(consistent.stdout), root: undefined },
      { consistent: true, origin: 'localhost:8080/receipts', from: 1, to: 5, root: undefined },
    );
    const unknown = await run('log', 'consistency', url, '--from', '3');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no checkpoint of size 3 of this log seen before/);

    const given = await run('log', 'consistency', url, '--from', '1', '--checkpoint', join(dir, 'receipt.tlog-proof'));
    assert.equal(given.code, 0, given.stderr);
    assert.match(given.stdout, /^Consistent: localhost:8080\/receipts at size 5 extends the tree of size 1 seen before\.\n$/);

    // A checkpoint of size 1 over another tree (a split view shown to someone) is caught.
    const forged = signNote(`localhost:8080/receipts\n1\n${Buffer.alloc(32, 7).toString('base64')}\n`, parseSignerKey(signing.signerKey)!);
    writeFileSync(join(dir, 'forged-checkpoint'), forged);
    const split = await run('log', 'consistency', url, '--from', '1', '--checkpoint', join(dir, 'forged-checkpoint'));
    assert.equal(split.code, 1);
    assert.match(split.stdout, /^NOT consistent: the tree of size 5 does not extend the tree of size 1/);
    assert.equal(
      (await run('log', 'consistency', url, '--from', '2', '--checkpoint', join(dir, 'forged-checkpoint'))).code,
      2,
      'the size given must be the checkpoint’s',
    );
    assert.deepEqual(keys, [signing.verifierKey], 'the configured key signs');
  });

  test('CLI: log keygen makes a key LOG_SIGNING_KEY accepts', async () => {
    const made = JSON.parse((await run('--json', 'log', 'keygen', 'example.org/receipts')).stdout);
    assert.match(made.signerKey, /^PRIVATE\+KEY\+example\.org\/receipts\+[0-9a-f]{8}\+/);
    assert.equal(loadConfig({ LOG_SIGNING_KEY: made.signerKey }).receiptLog.signer?.verifierKey, made.verifierKey);
    assert.throws(() => loadConfig({ LOG_SIGNING_KEY: made.verifierKey }), /LOG_SIGNING_KEY must be/);
    assert.equal((await run('log', 'keygen', 'has space')).code, 2);
  });
});
