/**
 * The product through Debian's nginx, configured as docs/operations.md recommends, in front of two
 * nodes on one PostgreSQL database (on SQLite, which is one node per database file, in front of the
 * one node): every request may land on either node, and everything still works, long polls and the
 * event stream included. Outside CI a machine without nginx skips this with a message; under CI the
 * missing nginx is a failure (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { nginxInstalled, startNginx, type Nginx } from '../../bench/cluster.ts';
import { Cleanup, freePort } from '../../bench/lib.ts';
import { claimAgent, registerAgent, registerProvisional, newAgentKey } from '../helpers/agents.ts';
import { otherNode, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { openEvents, taskStatuses } from '../helpers/events.ts';
import { overHttp } from '../helpers/listening.ts';
import { makeReceipt } from '../helpers/receipts.ts';
import { comment, createPost, follow, notificationsOf, socialUser, vote } from '../helpers/social.ts';
import { readyWebhookAgent, submitTask, waitForTask } from '../helpers/tasks.ts';

const skip = !nginxInstalled() && !process.env.CI ? 'nginx is not installed (apt-get install nginx); under CI this test fails instead of skipping' : false;

describe('nodes behind nginx', { skip }, () => {
  const cleanup = new Cleanup();
  let first: TestApp;
  let nodes: TestApp[];
  let nginx: Nginx;
  /** The service as its users reach it: every request through nginx. */
  let api: TestApp;
  let agentServer: AgentServer;

  before(async () => {
    const proxyPort = await freePort();
    first = await startTestApp({ TRUST_PROXY: '1', PUBLIC_URL: `http://127.0.0.1:${proxyPort}`, ALLOW_PRIVATE_ENDPOINTS: 'true' });
    nodes = testDatabaseUrl ? [first, await otherNode(first)] : [first];
    const upstreams: string[] = [];
    for (const node of nodes) {
      await node.server.listen({ host: '127.0.0.1', port: 0 });
      upstreams.push(`127.0.0.1:${(node.server.server.address() as AddressInfo).port}`);
    }
    nginx = await startNginx(cleanup, upstreams, proxyPort);
    api = overHttp(first, nginx.url);
    agentServer = await startAgentServer();
  });
  after(async () => {
    await agentServer?.close();
    await cleanup.run();
    for (const node of (nodes ?? []).slice(1)) await node.close();
    await first?.close();
  });

  it('spreads requests over every node, round robin', async () => {
    for (let i = 0; i < 6; i++) assert.equal((await api.request({ method: 'GET', url: '/ready' })).statusCode, 200);
    const answeredBy = new Set(
      nginx
        .accessLog()
        .filter((line) => line.includes(' /ready '))
        .map((line) => line.split(' ')[3]),
    );
    assert.equal(answeredBy.size, nodes.length, nginx.accessLog().join('\n'));
  });

  it('keeps a web sign-in (cookie and CSRF token) on every node, and its event stream hears its task to the end', async () => {
    const owner = await api.signup();
    const agent = await readyWebhookAgent(api, owner.token, agentServer.url);
    const { email } = await api.signup();
    const login = await api.request({ method: 'POST', url: '/v1/auth/browser/login', body: { email, password: 'correct horse battery' } });
    assert.equal(login.statusCode, 200, login.body);
    const setCookies = login.headers['set-cookie'] as unknown as string[];
    const cookie = setCookies.map((line) => line.split(';')[0]).join('; ');
    const csrfToken = login.json().data.csrfToken as string;
    for (let i = 0; i < 4; i++) {
      const me = await api.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie } });
      assert.equal(me.statusCode, 200, me.body);
    }
    const events = await openEvents(nginx.url, null, { cookie });
    assert.equal(events.status, 200);
    await events.until('the stream to start', (seen) => seen.length > 0 || events.comments.length > 0);

    const task = { description: 'Summarise this report', capabilities: ['text-summarization'], agentId: agent.id };
    const withoutCsrf = await api.request({ method: 'POST', url: '/v1/tasks', headers: { cookie }, body: task });
    assert.equal(withoutCsrf.statusCode, 403, withoutCsrf.body);
    const submitted = await api.request({ method: 'POST', url: '/v1/tasks', headers: { cookie, 'x-csrf-token': csrfToken }, body: task });
    assert.equal(submitted.statusCode, 201, submitted.body);
    const taskId = submitted.json().data.id as string;

    const [webhook] = (await agentServer.waitFor(agentServer.received.length + 1)).slice(-1);
    assert.equal(webhook!.json.taskId, taskId);
    assert.ok(webhook!.headers['webhook-id']);
    assert.equal(webhook!.json.callbackUrl, `${nginx.url}/v1/tasks/${taskId}/callback`);
    const done = await api.request({
      method: 'POST',
      url: `/v1/tasks/${taskId}/callback`,
      body: { taskToken: webhook!.json.taskToken, result: { text: 'short' } },
    });
    assert.equal(done.statusCode, 200, done.body);
    const again = await api.request({
      method: 'POST',
      url: `/v1/tasks/${taskId}/callback`,
      body: { taskToken: webhook!.json.taskToken, result: { text: 'twice' } },
    });
    assert.equal(again.statusCode, 409, 'a callback is accepted once');
    await events.until('the completed task', (seen) => taskStatuses(seen).some((event) => event.taskId === taskId && event.status === 'completed'));
    events.close();
  });

  it('registers and claims an agent, which takes its task by a long poll that another node wakes', async () => {
    const owner = await api.signup();
    const provisional = await registerProvisional(api, newAgentKey(), { deliveryMode: 'poll', endpoint: undefined, capabilities: ['sentiment-analysis'] });
    const claimed = await claimAgent(api, owner.token, provisional.id, provisional.key);
    assert.equal(claimed.statusCode, 200, claimed.body);

    const requester = await api.signup();
    const poll = api.request({ method: 'GET', url: `/v1/agents/${provisional.id}/tasks/poll?wait=20&limit=1`, token: owner.token });
    // Let the poll reach a node and wait there; round robin sends the next request, the submit, to the other node.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const task = await submitTask(api, requester.token, { agentId: provisional.id, capabilities: ['sentiment-analysis'] });
    const polled = await poll;
    const nodeOf = (path: string) =>
      nginx
        .accessLog()
        .filter((line) => line.includes(path))
        .at(-1)
        ?.split(' ')[3];
    if (nodes.length > 1) assert.notEqual(nodeOf(`/v1/agents/${provisional.id}/tasks/poll`), nodeOf(' POST /v1/tasks '), nginx.accessLog().join('\n'));
    assert.equal(polled.statusCode, 200, polled.body);
    const [payload] = polled.json().data as { taskId: string; taskToken: string }[];
    assert.equal(payload?.taskId, task.id);
    const done = await api.request({ method: 'POST', url: `/v1/tasks/${task.id}/callback`, body: { taskToken: payload.taskToken, result: 'positive' } });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await waitForTask(api, requester.token, task.id, (t) => t.status === 'completed')).result, 'positive');
  });

  it('takes receipts and answers them from every node', async () => {
    const owner = await api.signup();
    const parties = await Promise.all(
      [0, 1].map(async () => {
        const key = newAgentKey();
        const agent = await registerAgent(api, owner.token, { pubkey: key.pubkey });
        return { agent: agent.slug, key };
      }),
    );
    const receipt = makeReceipt('outcome', parties[0]!, parties[1]!);
    const posted = await api.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(posted.statusCode, 201, posted.body);
    assert.equal(posted.json().data.signatureVerified, true);
    for (let i = 0; i < nodes.length * 2; i++) {
      const chain = await api.request({ method: 'GET', url: `/v1/trust-receipts/chain/${receipt.correlationId}` });
      assert.equal(chain.statusCode, 200, chain.body);
      assert.equal(chain.json().data.outcome.receiptId, receipt.receiptId);
    }
  });

  it('follows, posts, comments and votes, and notifies the author', async () => {
    const author = await socialUser(api);
    const reader = await socialUser(api);
    await follow(api, reader.token, author.username);
    const post = await createPost(api, author.token, 'Three nodes, one database');
    await comment(api, reader.token, post.id, 'Which proxy?');
    assert.equal((await vote(api, reader.token, post.id, 1)).score, 1);
    const types = (await notificationsOf(api, author.token)).map((notification) => notification.type).sort();
    assert.deepEqual(types, ['follow', 'like', 'reply']);
  });
});
