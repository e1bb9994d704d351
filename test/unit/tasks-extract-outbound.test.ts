import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOutboundClient, type OutboundClient } from '../../src/lib/outbound-http.ts';
import { outboundFetch } from '../../src/modules/extraction/index.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';

/** The model extractor's transport: its abort signal must reach the outbound client. */
describe('tasks: the model extractor over the outbound client', () => {
  let server: AgentServer;
  let outbound: OutboundClient;
  before(async () => {
    server = await startAgentServer(() => 'hang');
    // A long whole-attempt timeout, so only the caller's signal can end the request quickly.
    outbound = createOutboundClient({ allowPrivate: true, totalTimeoutMs: 20_000 });
  });
  after(async () => {
    await outbound.close();
    await server.close();
  });

  const init = (signal: AbortSignal) => ({ method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: '{}', signal });

  it("aborting the extractor's signal ends the request at once, not at the client's timeout", async () => {
    const fetch = outboundFetch(outbound);
    const controller = new AbortController();
    const started = Date.now();
    const pending = fetch(server.url, init(controller.signal));
    await server.waitFor(1);
    controller.abort();
    await assert.rejects(pending, /^Error: aborted: /);
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  });

  it('an already aborted signal sends nothing', async () => {
    const sent = server.received.length;
    const result = await outbound.send({ url: server.url, method: 'POST', body: '{}', signal: AbortSignal.abort() });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.failure.kind, 'aborted');
    assert.equal(server.received.length, sent);
  });

  it("the client's own timeout still applies alongside a caller's signal", async () => {
    const short = createOutboundClient({ allowPrivate: true, totalTimeoutMs: 200 });
    try {
      const result = await short.send({ url: server.url, method: 'POST', body: '{}', signal: new AbortController().signal });
      assert.equal(!result.ok && result.failure.kind, 'timeout');
    } finally {
      await short.close();
    }
  });
});
