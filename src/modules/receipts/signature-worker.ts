/** Worker side of signature-verifier.ts: verifies a batch, answers one verdict byte per signature. */
import { parentPort } from 'node:worker_threads';
import { verifyBatch, type VerifyBatch, type VerifyVerdicts } from './signature-batch.ts';
import { nameThisThread } from '../../lib/thread-name.ts';

nameThisThread('agentry-verify');

parentPort?.on('message', (batch: VerifyBatch) => {
  const verdicts = verifyBatch(batch);
  parentPort!.postMessage({ id: batch.id, verdicts } satisfies VerifyVerdicts, [verdicts.buffer]);
});
