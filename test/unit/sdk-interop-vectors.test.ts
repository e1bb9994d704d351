import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createPrivateKey } from 'node:crypto';
import { interopVectors, interopVectorsFile } from '../../scripts/sdk-interop-vectors.ts';
import { publicKeyString, verifyReceipt, verifyWebhook } from '../../packages/sdk/src/index.ts';

// The Python kit's tests read the same file: what the TypeScript kit makes today must be what it holds.
const stored = JSON.parse(readFileSync(interopVectorsFile, 'utf8'));

test('the shared SDK vectors are what the TypeScript kit makes (regenerate with scripts/sdk-interop-vectors.ts)', () => {
  assert.deepEqual(interopVectors(), stored);
});

test('the TypeScript kit reads the shared vectors: key file, receipts and webhook', () => {
  assert.equal(publicKeyString(createPrivateKey(stored.keys.A.pkcs8Pem)), stored.keys.A.pubkey);
  for (const { receipt } of stored.receipts) assert.equal(verifyReceipt(receipt), true);
  const { secret, id, timestamp, body, signature } = stored.webhook;
  const delivery = verifyWebhook({
    secret,
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
    now: new Date(timestamp * 1000),
  });
  assert.equal(delivery.taskId, 'task-1');
});
