/**
 * Verified domains: an owner serves the registry's token at its endpoint host's
 * /.well-known/agentry.json; the registry reads it through the outbound guard, marks the agent
 * (identityLevel "domain"), logs it, re-checks it daily and takes the mark off after 3 days of
 * failed re-checks, telling the owner.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { notificationsOf, socialUser, type SocialUser } from '../helpers/social.ts';

type Answer = { status: number; headers?: Record<string, string>; body?: string };

/** A loopback host whose answers the test sets per path. */
async function startHost(): Promise<{ url: string; host: string; answers: Map<string, Answer>; requests: string[]; close(): Promise<void> }> {
  const answers = new Map<string, Answer>();
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const answer = answers.get(request.url ?? '') ?? { status: 404, body: 'not here' };
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    answers,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const FILE = '/.well-known/agentry.json';
const DAY_MS = 24 * 3600 * 1000;

describe('verified domains (POST /v1/agents/:id/domain, /domain/verify, the daily re-check)', () => {
  let app: TestApp;
  let host: Awaited<ReturnType<typeof startHost>>;
  let elsewhere: Awaited<ReturnType<typeof startHost>>;
  let owner: SocialUser;
  const clock = new TestClock();

  before(async () => {
    [host, elsewhere] = await Promise.all([startHost(), startHost()]);
    // The re-check pass runs when a test calls it, on the test's clock.
    app = await startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true' }, { clock, backgroundIntervalsMs: { domainRecheck: 3_600_000 } });
    owner = await socialUser(app);
  });
  after(async () => {
    await app.close();
    await Promise.all([host.close(), elsewhere.close()]);
  });

  const issue = (id: string, token: string | null = owner.token) => app.request({ method: 'POST', url: `/v1/agents/${id}/domain`, token });
  const verify = (id: string, token: string | null = owner.token) => app.request({ method: 'POST', url: `/v1/agents/${id}/domain/verify`, token });
  const view = async (id: string) => (await app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data as Record<string, unknown>;
  const events = async (id: string) =>
    ((await app.request({ method: 'GET', url: `/v1/agents/${id}/history` })).json().data.events as { event: string; values: Record<string, unknown> }[]).map(
      (e) => [e.event, e.values] as const,
    );
  const serve = (path: string, answer: Answer) => host.answers.set(path, answer);
  const serveFile = (agents: unknown[]) => serve(FILE, { status: 200, body: JSON.stringify({ agents }) });

  async function agentOnHost(path = '/hook') {
    const agent = await registerAgent(app, owner.token, { endpoint: `${host.url}${path}` });
    const issued = await issue(agent.id);
    assert.equal(issued.statusCode, 200, issued.body);
    return { id: agent.id, token: issued.json().data.token as string };
  }

  it('issues a token for the endpoint host, and verifies the agent once the host serves it', async () => {
    const agent = await registerAgent(app, owner.token, { endpoint: `${host.url}/agents/one` });
    assert.equal(agent.identityLevel, 'none');
    assert.equal(agent.verifiedDomain, null);

    const issued = await issue(agent.id);
    assert.equal(issued.statusCode, 200, issued.body);
    const { domain, token, url, file } = issued.json().data;
    assert.equal(domain, host.host);
    assert.equal(url, `${host.url}${FILE}`, 'plain http only because this service allows private endpoints');
    assert.match(token, /^agentry-domain-[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(file, { agents: [{ agentId: agent.id, token }] });
    assert.equal((await issue(agent.id)).json().data.token, token, 'asking again gives the same token for the same host');

    // Several agents per host, in one file.
    serveFile([
      { agentId: 'someone-else', token: 'x' },
      { agentId: agent.id, token },
    ]);
    const verified = await verify(agent.id);
    assert.equal(verified.statusCode, 200, verified.body);
    assert.deepEqual(verified.json().data, { agentId: agent.id, verifiedDomain: domain, identityLevel: 'domain', checkedAt: clock.now().toISOString() });
    const shown = await view(agent.id);
    assert.equal(shown.identityLevel, 'domain');
    assert.equal(shown.verifiedDomain, domain);
    assert.deepEqual((await events(agent.id)).at(-1), ['domain_verified', { domain }]);
    const found = async (level: string) =>
      ((await app.request({ method: 'GET', url: `/v1/discover?identityLevel=${level}&limit=50` })).json().data as { id: string; identityLevel: string }[]).map(
        (a) => [a.id, a.identityLevel],
      );
    assert.deepEqual(await found('domain'), [[agent.id, 'domain']], 'discovery filters by identity level');
    assert.ok(!(await found('none')).some(([id]) => id === agent.id));
    expectError(await app.request({ method: 'GET', url: '/v1/discover?identityLevel=dns' }), 400, 'BAD_REQUEST');
    // Verifying again changes nothing and logs nothing.
    assert.equal((await verify(agent.id)).statusCode, 200);
    assert.equal((await events(agent.id)).filter(([event]) => event === 'domain_verified').length, 1);
  });

  it('answers 422 naming the URL and what was wrong: missing, not JSON, not listed, wrong token, too large, redirected off the host', async () => {
    const { id, token } = await agentOnHost('/wrong');
    const url = `${host.url}${FILE}`;
    const refused = async (pattern: RegExp) => {
      const error = expectError(await verify(id), 422, 'UNPROCESSABLE');
      assert.ok(error.message.includes(url), error.message);
      assert.match(error.message, pattern);
      assert.deepEqual(error.details?.[0]?.path, '/domainFile');
    };
    host.answers.delete(FILE);
    await refused(/answered HTTP 404/);
    serve(FILE, { status: 200, body: '<html>' });
    await refused(/is not JSON/);
    serve(FILE, { status: 200, body: JSON.stringify({ agent: [] }) });
    await refused(/no "agents" list/);
    serveFile([{ agentId: 'another', token }]);
    await refused(new RegExp(`no entry with "agentId": "${id}"`));
    serveFile([{ agentId: id, token: `${token}x` }]);
    await refused(/another token/);
    serve(FILE, { status: 200, body: JSON.stringify({ agents: [{ agentId: id, token }], padding: 'x'.repeat(70 * 1024) }) });
    await refused(/too large/);
    elsewhere.answers.set(FILE, { status: 200, body: JSON.stringify({ agents: [{ agentId: id, token }] }) });
    serve(FILE, { status: 302, headers: { location: `${elsewhere.url}${FILE}` } });
    await refused(new RegExp(`redirects off ${host.host} \\(to http://${elsewhere.host}\\)`));
    assert.equal(elsewhere.requests.length, 0, 'the other host is never asked');
    assert.equal((await view(id)).identityLevel, 'none');

    // A redirect that stays on the host is followed.
    serve(FILE, { status: 301, headers: { location: '/files/agentry.json' } });
    serve('/files/agentry.json', { status: 200, body: JSON.stringify({ agents: [{ agentId: id, token }] }) });
    assert.equal((await verify(id)).statusCode, 200);
    host.answers.delete('/files/agentry.json');
  });

  it("is the owner's alone, and needs a token for the host first", async () => {
    const { id } = await agentOnHost('/owned');
    expectError(await issue(id, null), 401, 'UNAUTHORIZED');
    expectError(await verify(id, null), 401, 'UNAUTHORIZED');
    const other = await app.signup();
    expectError(await issue(id, other.token), 403, 'FORBIDDEN');
    expectError(await verify(id, other.token), 403, 'FORBIDDEN');
    const hidden = await registerAgent(app, owner.token, { endpoint: `${host.url}/private`, visibility: 'private' });
    expectError(await issue(hidden.id, other.token), 404, 'NOT_FOUND');
    expectError(await issue('no-such-agent'), 404, 'NOT_FOUND');

    const fresh = await registerAgent(app, owner.token, { endpoint: `${host.url}/fresh` });
    assert.match(expectError(await verify(fresh.id), 400, 'BAD_REQUEST').message, /Ask for a token/);
    const polling = await registerAgent(app, owner.token, { endpoint: undefined, deliveryMode: 'poll' });
    assert.match(expectError(await issue(polling.id), 400, 'BAD_REQUEST').message, /no http\(s\) endpoint/);
  });

  it('an endpoint moved to another host loses the mark at once, logged', async () => {
    const { id, token } = await agentOnHost('/moving');
    serveFile([{ agentId: id, token }]);
    assert.equal((await verify(id)).statusCode, 200);
    const moved = await app.request({ method: 'PATCH', url: `/v1/agents/${id}`, token: owner.token, body: { endpoint: `${elsewhere.url}/moved` } });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().data.verifiedDomain, null);
    assert.equal(moved.json().data.identityLevel, 'none');
    assert.deepEqual((await events(id)).at(-1), ['domain_lost', { domain: host.host, reason: 'the endpoint moved to another host' }]);
  });

  it('re-checks daily; 3 days of failed re-checks take the mark off and tell the owner', async () => {
    const { id, token } = await agentOnHost('/daily');
    serveFile([{ agentId: id, token }]);
    assert.equal((await verify(id)).statusCode, 200);
    const reads = () => host.requests.filter((request) => request === `GET ${FILE}`).length;

    // Not due within a day: no read.
    let before = reads();
    await app.domainProofs.recheckDue();
    assert.equal(reads(), before);

    clock.advance(DAY_MS);
    before = reads();
    await app.domainProofs.recheckDue();
    assert.ok(reads() > before, 'a day later the file is read again');
    assert.equal((await view(id)).verifiedDomain, host.host);

    host.answers.delete(FILE);
    for (let day = 1; day <= 3; day++) {
      clock.advance(DAY_MS);
      await app.domainProofs.recheckDue();
      assert.equal((await view(id)).verifiedDomain, host.host, `still verified after ${day} failed re-check(s)`);
    }
    clock.advance(DAY_MS);
    await app.domainProofs.recheckDue();
    const lost = await view(id);
    assert.equal(lost.verifiedDomain, null);
    assert.equal(lost.identityLevel, 'none');
    assert.deepEqual((await events(id)).at(-1), ['domain_lost', { domain: host.host, reason: 'the domain file failed its re-checks for 3 days' }]);
    const notices = await notificationsOf(app, owner.token);
    assert.ok(
      notices.some((notice) => String(notice.postBody).includes(host.host) && String(notice.postBody).includes('no longer shows')),
      JSON.stringify(notices),
    );

    // Serving it again and verifying restores the mark.
    serveFile([{ agentId: id, token }]);
    assert.equal((await verify(id)).statusCode, 200);
    assert.equal((await view(id)).identityLevel, 'domain');
  });
});

describe('verified domains without ALLOW_PRIVATE_ENDPOINTS', () => {
  let app: TestApp;
  let host: Awaited<ReturnType<typeof startHost>>;
  before(async () => {
    host = await startHost();
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
    await host.close();
  });

  it('asks for https and refuses a private address, naming the URL', async () => {
    const { token } = await app.signup();
    const agent = await registerAgent(app, token, { endpoint: `${host.url}/hook` });
    const issued = (await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/domain`, token })).json().data;
    assert.equal(issued.url, `https://${host.host}${FILE}`);
    host.answers.set(FILE, { status: 200, body: JSON.stringify({ agents: [{ agentId: agent.id, token: issued.token }] }) });
    const error = expectError(await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/domain/verify`, token }), 422, 'UNPROCESSABLE');
    assert.match(error.message, /could not be reached at a public address/);
    assert.ok(error.message.includes(issued.url), error.message);
    assert.equal(host.requests.length, 0);
  });
});
