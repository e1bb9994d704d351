/**
 * kill -9 while the receipt log is being sequenced, then start again: every verified receipt ends
 * up logged exactly once, at the index its entry holds, with no gap, and the tree the last
 * checkpoint signs is the tree of those entries. Runs the real service (src/main.ts) as a child
 * process on a database of its own: a SQLite file, or a fresh PostgreSQL database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { hashLeaf, verifyCheckpoint } from '@agentry/sdk/tlog';
import { openDatabase } from '../../src/db/database.ts';
import { newTimeOrderedId } from '../../src/lib/ids.ts';
import { canonicalForms } from '../../src/modules/receipts/service.ts';
import { storedHashesFor, treeHash, type HashReader } from '../../src/modules/tlog/merkle.ts';
import { newAgentKey } from '../helpers/agents.ts';
import { makeReceipt } from '../helpers/receipts.ts';
import { waitFor } from '../helpers/wait.ts';
import { freePort, processDatabase, spawnService, type ServiceProcess } from '../helpers/processes.ts';

const RECEIPTS = 20_000;

describe('receipt log: kill -9 mid-sequencing', () => {
  let databaseUrl: string;
  let cleanup: () => Promise<void>;
  let service: ServiceProcess | null = null;
  let port: number;

  before(async () => {
    ({ databaseUrl, cleanup } = await processDatabase('tlog_crash'));
    port = await freePort();
    // Verified receipts waiting to be logged (as after an upgrade): the service sequences them in passes of 1,000.
    const handle = openDatabase({ url: databaseUrl });
    try {
      await handle.migrate();
      const issuer = { agent: 'issuer', key: newAgentKey() };
      const subject = { agent: 'subject', key: newAgentKey() };
      const start = Date.parse('2026-01-01T00:00:00Z');
      for (let batch = 0; batch < RECEIPTS; batch += 500) {
        const rows = Array.from({ length: 500 }, (_, i) => {
          const receipt = makeReceipt('offer', issuer, subject);
          return {
            id: newTimeOrderedId(),
            receipt_id: receipt.receiptId,
            correlation_id: receipt.correlationId,
            kind: 'offer' as const,
            task_class: 'code.review.pull_request',
            issuer_agent: 'issuer',
            issuer_pubkey: issuer.key.pubkey,
            subject_agent: 'subject',
            subject_pubkey: subject.key.pubkey,
            issued_at: '2026-01-01T00:00:00.000Z',
            expires_at: null,
            signature_verified: 1 as const,
            outcome_value: null,
            envelope: canonicalForms(receipt).stored,
            received_at: new Date(start + batch + i).toISOString(),
            log_index: null,
          };
        });
        await handle.db.insertInto('trust_receipts').values(rows).execute();
      }
    } finally {
      await handle.close();
    }
  });
  after(async () => {
    service?.child.kill('SIGKILL');
    await cleanup();
  });

  function startService(): ServiceProcess {
    service = spawnService(port, databaseUrl, { RECEIPT_LOG_INTERVAL_MS: '10' });
    return service;
  }

  const checkpointSize = (base: string) =>
    fetch(`${base}/.tlog/receipts/checkpoint`).then(
      async (response) => (response.ok ? Number((await response.text()).split('\n')[1]) : -1),
      () => -1,
    );

  it('after a restart every receipt is logged once, without gaps, and the checkpoint signs those entries', async () => {
    const first = startService();
    // Killed as soon as some passes have committed and more are running. The waits are generous: a
    // loaded machine can take minutes to start the service and commit its first pass.
    const seen = await waitFor(
      'a first pass to commit',
      () => checkpointSize(first.base),
      (size) => size > 0,
      { timeoutMs: 300_000, intervalMs: 5 },
    );
    service!.child.kill('SIGKILL');
    await first.exited;
    assert.ok(seen < RECEIPTS, `killed while sequencing (size ${seen})`);

    const second = startService();
    await waitFor(
      'every receipt to be logged',
      () => checkpointSize(second.base),
      (size) => size === RECEIPTS,
      { timeoutMs: 300_000, intervalMs: 100 },
    );
    const keys = (await (await fetch(`${second.base}/.tlog/keys`)).text()).split('\n').filter(Boolean);
    const checkpoint = verifyCheckpoint(await (await fetch(`${second.base}/.tlog/receipts/checkpoint`)).text(), keys);
    service!.child.kill('SIGKILL');
    await second.exited;

    const handle = openDatabase({ url: databaseUrl });
    try {
      const receipts = await handle.db.selectFrom('trust_receipts').select(['envelope', 'log_index', 'received_at']).orderBy('received_at').execute();
      assert.deepEqual(
        receipts.map((row) => Number(row.log_index)),
        Array.from({ length: RECEIPTS }, (_, i) => i),
        'each receipt once, in received order, no gap',
      );
      const entries = await sql<{ idx: number | string; data: Buffer }>`SELECT idx, data FROM tlog_entries WHERE log = 'receipts' ORDER BY idx`.execute(
        handle.db,
      );
      assert.equal(entries.rows.length, RECEIPTS);
      const hashes: Buffer[] = [];
      const read: HashReader = async (indexes) => indexes.map((index) => hashes[index]!);
      for (const [index, row] of entries.rows.entries()) {
        assert.equal(Number(row.idx), index);
        assert.equal(Buffer.from(row.data).toString('utf8'), receipts[index]!.envelope);
        hashes.push(...(await storedHashesFor(index, hashLeaf(row.data), read)));
      }
      assert.deepEqual(await treeHash(RECEIPTS, read), checkpoint.root);
    } finally {
      await handle.close();
    }
  });
});
