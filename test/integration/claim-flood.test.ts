/**
 * A claim stays possible for a person while others flood the agent with challenge requests: a
 * challenge asked for with a credential is issued to that account, and no one else's requests
 * replace it. Time runs on the test clock; addresses come from X-Forwarded-For behind one trusted proxy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerProvisional } from '../helpers/agents.ts';

describe('claims under a flood of challenge requests', () => {
  let app: TestApp;
  const clock = new TestClock();
  let owner: { token: string };
  let flooder: { token: string };

  before(async () => {
    // A burst is 100 requests at once on a pool of a few connections: on a loaded CI machine some wait
    // longer for one than the default 5 s, which is the overload answer (503), not what this file tests.
    app = await startTestApp({ TRUST_PROXY: '1', DATABASE_TIMEOUT_MS: '60000' }, { clock });
    owner = await app.signup();
    flooder = await app.signup();
  });
  after(() => app.close());

  const challengeFrom = (agentId: string, address: string, token: string | null) =>
    app.server.inject({
      method: token ? 'POST' : 'GET',
      url: `/v1/agents/${agentId}/claim/challenge`,
      headers: { 'x-forwarded-for': address, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  for (const perSecond of [10, 100]) {
    for (const addresses of [1, 10]) {
      it(`a claim signed 30 s after its challenge succeeds after 10 s of ${perSecond} requests a second from ${addresses} address(es)`, async () => {
        const agent = await registerProvisional(app);
        const asked = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/claim/challenge`, token: owner.token });
        assert.equal(asked.statusCode, 200, asked.body);
        const nonce = asked.json().data.nonce as string;

        // Ten seconds of flooding, anonymous and signed in, from `addresses` addresses, then quiet
        // until the claim is signed 30 s after its challenge.
        for (let second = 0; second < 10; second++) {
          const burst = Array.from({ length: perSecond }, (_, i) =>
            challengeFrom(agent.id, `203.0.113.${(i % addresses) + 1}`, i % 2 === 0 ? null : flooder.token),
          );
          for (const response of await Promise.all(burst)) assert.equal(response.statusCode, 200, response.body);
          clock.advance(1000);
        }
        clock.advance(20_000);

        // The flooder's own challenges open nothing for the flooder's account either.
        const claimed = await app.request({
          method: 'POST',
          url: `/v1/agents/${agent.id}/claim`,
          token: owner.token,
          body: { signature: agent.key.sign(nonce) },
        });
        assert.equal(claimed.statusCode, 200, claimed.body);
        assert.equal(claimed.json().data.status, 'active');
      });
    }
  }

  it("a challenge issued to one account cannot be used by another's claim", async () => {
    const agent = await registerProvisional(app);
    const nonce = (await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/claim/challenge`, token: owner.token })).json().data.nonce as string;
    const stolen = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/claim`, token: flooder.token, body: { signature: agent.key.sign(nonce) } });
    assert.equal(stolen.statusCode, 400, stolen.body);
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data.status, 'provisional');
  });
});
