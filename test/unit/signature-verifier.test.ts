import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import canonicalize from 'canonicalize';
import { verifyStrict } from '../../src/lib/ed25519.ts';
import { startModuleWorker } from '../../src/lib/module-worker.ts';
import { createWorkerVerifier } from '../../src/modules/receipts/signature-verifier.ts';
import { canonicalForms } from '../../src/modules/receipts/service.ts';
import { waitFor } from '../helpers/wait.ts';

interface CctvVector {
  key: string;
  sig: string;
  msg: string;
}
const hex = (text: string) => Buffer.from(text, 'hex');
const cctv = JSON.parse(readFileSync(new URL('../fixtures/vectors/cctv-ed25519.json', import.meta.url), 'utf8')) as CctvVector[];

describe('signature verification on worker threads', () => {
  it('gives every CCTV vector the same verdict as on the request thread, in concurrent batches', async () => {
    const verifier = createWorkerVerifier({ threads: 2 });
    try {
      const verdicts = await Promise.all(cctv.map((v) => verifier.verify(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig))));
      const expected = cctv.map((v) => verifyStrict(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig)));
      assert.deepEqual(verdicts, expected);
      assert.ok(verdicts.includes(true) && verdicts.includes(false));
    } finally {
      await verifier.close();
    }
  });

  it('reads each item from its own slice of a pooled Buffer (no bytes of a neighbour)', async () => {
    const verifier = createWorkerVerifier({ threads: 1 });
    try {
      const v = cctv.find((item) => verifyStrict(hex(item.key), Buffer.from(item.msg, 'utf8'), hex(item.sig)))!;
      // Small Buffers share one allocation pool; a view's offset must be respected.
      const pooled = Buffer.from(`xx${v.msg}yy`, 'utf8');
      const message = pooled.subarray(2, pooled.length - 2);
      assert.equal(await verifier.verify(hex(v.key), message, hex(v.sig)), true);
      assert.equal(await verifier.verify(hex(v.key), pooled, hex(v.sig)), false);
    } finally {
      await verifier.close();
    }
  });

  it('verifies on the calling thread what a dying worker held, and says so once per worker', async () => {
    const errors: unknown[] = [];
    const exits: Promise<unknown>[] = [];
    const dying = () => {
      const worker = new Worker('process.exit(3)', { eval: true });
      exits.push(new Promise((resolve) => worker.once('exit', resolve)));
      return worker;
    };
    const verifier = createWorkerVerifier({ threads: 2, onWorkerError: (error) => errors.push(error), startWorker: dying });
    try {
      const sample = cctv.slice(0, 40);
      const verdicts = await Promise.all(sample.map((v) => verifier.verify(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig))));
      assert.deepEqual(
        verdicts,
        sample.map((v) => verifyStrict(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig))),
      );
      // Idle workers are unref'd, so their exits alone would not keep this test's loop alive.
      const keepAlive = setInterval(() => {}, 1000);
      await Promise.all(exits).finally(() => clearInterval(keepAlive));
      assert.equal(errors.length, 2);
      assert.equal(await verifier.verify(hex(sample[0]!.key), Buffer.from(sample[0]!.msg, 'utf8'), hex(sample[0]!.sig)), verdicts[0]);
    } finally {
      await verifier.close();
    }
  });

  it('stops its workers once idle, and starts them again for the next verification', async () => {
    const started: Worker[] = [];
    let exits = 0;
    const startWorker = () => {
      const worker = startModuleWorker('signature-worker', new URL('../../src/modules/receipts/signature-verifier.ts', import.meta.url).href);
      worker.once('exit', () => exits++);
      started.push(worker);
      return worker;
    };
    const errors: unknown[] = [];
    const verifier = createWorkerVerifier({ threads: 2, idleStopMs: 50, startWorker, onWorkerError: (error) => errors.push(error) });
    try {
      const sample = cctv.slice(0, 20);
      const expected = sample.map((v) => verifyStrict(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig)));
      const verifyAll = () => Promise.all(sample.map((v) => verifier.verify(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig))));
      assert.deepEqual(await verifyAll(), expected);
      await waitFor(
        'both idle workers to stop',
        () => exits,
        (count) => count === 2,
      );
      assert.deepEqual(await verifyAll(), expected);
      assert.equal(started.length, 4, 'two new workers verified the second round');
      assert.deepEqual(errors, [], 'a stop is not a death');
    } finally {
      await verifier.close();
    }
  });

  it('keeps answering after close, on the calling thread', async () => {
    const verifier = createWorkerVerifier({ threads: 1 });
    const v = cctv[0]!;
    const pending = verifier.verify(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig));
    await verifier.close();
    const expected = verifyStrict(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig));
    assert.equal(await pending, expected);
    assert.equal(await verifier.verify(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig)), expected);
  });
});

describe('canonical forms of a receipt', () => {
  it('are RFC 8785 of the envelope with and without its signature', () => {
    const envelope = {
      version: '2026-03-12',
      kind: 'outcome',
      signature: { value: 'c2ln', alg: 'Ed25519', keyId: 'a#1' },
      payload: { outcome: 'success', latencyMs: 1e21, 'x-é': [3, 1.5, 'ü\u2028'] },
      issuer: { pubkey: 'ed25519:AAAA', agent: 'a' },
      expiresAt: undefined,
    };
    const { signature: _signature, ...unsigned } = envelope;
    const forms = canonicalForms(envelope);
    assert.equal(forms.stored, canonicalize(envelope));
    assert.equal(forms.signed, canonicalize(unsigned));
  });
});
