/**
 * The service started as a process (src/main.ts): it answers its first request before it starts its
 * background work and search's warm-up, yet never says it is ready before search is warm, and the
 * background work does start (a stored receipt gets its place in the receipt log).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newAgentKey } from '../helpers/agents.ts';
import { makeReceipt } from '../helpers/receipts.ts';
import { freePort, processDatabase, spawnService, untilServing, type ServiceProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

describe('starting the service', () => {
  let databaseUrl: string;
  let cleanup: () => Promise<void>;
  let service: ServiceProcess | null = null;

  before(async () => {
    ({ databaseUrl, cleanup } = await processDatabase('start'));
  });
  after(async () => {
    service?.child.kill('SIGKILL');
    await service?.exited;
    await cleanup();
  });

  it('says it is starting when its first request asks whether it is ready, becomes ready, and logs receipts', async () => {
    const port = await freePort();
    service = spawnService(port, databaseUrl, { PUBLIC_URL: `http://127.0.0.1:${port}` });
    // The first request the node answers is this one: until it listens, the connection is refused.
    const first = await waitFor(
      'the service to answer',
      () =>
        fetch(`${service!.base}/ready`).then(
          async (response) => ({ status: response.status, body: (await response.json()) as unknown }),
          () => null,
        ),
      (answer) => answer !== null,
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    assert.deepEqual(first, { status: 503, body: { status: 'starting: search is not ready yet' } });

    await untilServing(service.base, '/ready');

    const issuer = { agent: 'issuer', key: newAgentKey() };
    const subject = { agent: 'subject', key: newAgentKey() };
    const stored = await fetch(`${service.base}/v1/trust-receipts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(makeReceipt('offer', issuer, subject)),
    });
    assert.equal(stored.status, 201);
    const { data } = (await stored.json()) as { data: { id: string } };
    // The receipt log's sequencer is background work: the receipt's proof exists once it has run.
    const proof = await waitFor(
      'the receipt to be logged',
      () => fetch(`${service!.base}/v1/trust-receipts/${data.id}/proof`).then((response) => response.status),
      (status) => status === 200,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    assert.equal(proof, 200);
  });
});
