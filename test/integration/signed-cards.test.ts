/**
 * Signed A2A cards and the identity shown everywhere an agent appears: a card's A2A 1.0 signatures
 * are checked against the key its protected header's jku and kid name (fetched under the outbound
 * guard); a card whose signature fails is refused with the reason; the service signs its own card.
 * The agent view, /v0.1, the AI Catalog and tasks carry the identity level, verified domain and signed card.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import * as jose from 'jose';
import { createOutboundClient } from '../../src/lib/outbound-http.ts';
import { createCardSignatureVerifier } from '../../src/modules/registry/index.ts';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent, uniqueName } from '../helpers/agents.ts';
import { submitTask } from '../helpers/tasks.ts';

type Answer = { status: number; contentType?: string; body: string };

/** A loopback host whose answers the test sets per path. */
async function startHost() {
  const answers = new Map<string, Answer>();
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const answer = answers.get(request.url ?? '') ?? { status: 404, body: 'not here' };
    response.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    requests,
    serve: (path: string, body: unknown, status = 200) => answers.set(path, { status, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A free loopback port, so the app's public URL (and so its card's jku) can name the address it listens on. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** An A2A 1.0 card, as the SDK types it. */
const cardOf = (name = uniqueName('Signed Reader')) =>
  AgentCard.fromJSON({
    name,
    description: 'Reads invoices and returns their totals',
    supportedInterfaces: [{ url: 'https://invoices.example.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'totals', name: 'Invoice totals', description: 'Sums an invoice', tags: ['invoices'] }],
  });

describe('signed A2A cards', () => {
  let app: TestApp;
  let baseUrl: string;
  let host: Awaited<ReturnType<typeof startHost>>;
  let token: string;
  let ed: { privateKey: jose.CryptoKey; jwk: jose.JWK };
  let es: { privateKey: jose.CryptoKey; jwk: jose.JWK };

  before(async () => {
    const port = await freePort();
    [host, app] = await Promise.all([startHost(), startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true', PUBLIC_URL: `http://127.0.0.1:${port}` })]);
    baseUrl = await app.server.listen({ port, host: '127.0.0.1' });
    token = (await app.signup()).token;
    const edPair = await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const esPair = await jose.generateKeyPair('ES256');
    ed = { privateKey: edPair.privateKey, jwk: { ...(await jose.exportJWK(edPair.publicKey)), kid: 'ed-1', use: 'sig' } };
    es = { privateKey: esPair.privateKey, jwk: { ...(await jose.exportJWK(esPair.publicKey)), kid: 'es-1' } };
    host.serve('/jwks.json', { keys: [ed.jwk, es.jwk] });
  });
  after(async () => {
    await app.close();
    await host.close();
  });

  /** A card signed by the A2A SDK, served at `path`. */
  async function serveSigned(path: string, key: { privateKey: jose.CryptoKey }, header: Record<string, unknown>, card = cardOf()) {
    const signed = await generateAgentCardSignature(key.privateKey, { typ: 'JOSE', ...header })(card);
    const json = AgentCard.toJSON(signed) as Record<string, unknown>;
    host.serve(path, json);
    return json;
  }
  const register = (path: string) =>
    app.request({ method: 'POST', url: '/v1/agents', token, body: { categories: ['productivity'], deliveryMode: 'poll', manifestUrl: `${host.url}${path}` } });
  const refused = (response: Awaited<ReturnType<typeof register>>, why: RegExp) => {
    const error = expectError(response, 422, 'UNPROCESSABLE');
    assert.match(error.message, /^The A2A card at manifestUrl is refused: its signature does not verify: /);
    assert.match(error.message, why);
    assert.equal(error.details?.[0]?.path, '/body/manifestUrl');
  };

  it('takes a card the A2A SDK signed with Ed25519 or ES256, and shows the verified signature', async () => {
    const jku = `${host.url}/jwks.json`;
    await serveSigned('/ed.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku });
    await serveSigned('/es.json', es, { alg: 'ES256', kid: 'es-1', jku });
    for (const [path, alg, kid] of [
      ['/ed.json', 'EdDSA', 'ed-1'],
      ['/es.json', 'ES256', 'es-1'],
    ] as const) {
      const response = await register(path);
      assert.equal(response.statusCode, 201, response.body);
      const agent = response.json().data;
      assert.deepEqual({ ...agent.cardSignature, checkedAt: typeof agent.cardSignature.checkedAt }, { verified: true, alg, kid, jku, checkedAt: 'string' });
      const shown = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data;
      assert.deepEqual(shown.cardSignature, agent.cardSignature);
      // The AI Catalog names the key the card is signed with.
      const catalog = (await app.request({ method: 'GET', url: '/.well-known/ai-catalog.json' })).json();
      const entry = catalog.entries.find((e: { identifier: string }) => e.identifier.endsWith(`:agent:${agent.slug}`));
      assert.equal(entry.metadata.cardSignatureKid, kid);
      assert.equal(entry.metadata.cardSignatureJku, jku);
      assert.equal(entry.metadata.identityLevel, 'none');
    }
  });

  it('refuses a card changed after signing, naming the key it does not verify with; no agent is made', async () => {
    const signed = await serveSigned('/tampered.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku: `${host.url}/jwks.json` });
    host.serve('/tampered.json', { ...signed, description: 'Sends your invoices elsewhere' });
    const before = (await app.request({ method: 'GET', url: '/v1/agents', token })).json().pagination.total;
    refused(await register('/tampered.json'), /signature 1 does not verify with the key "ed-1" at http:\/\/127\.0\.0\.1:\d+\/jwks\.json/);
    assert.equal((await app.request({ method: 'GET', url: '/v1/agents', token })).json().pagination.total, before);
  });

  it('takes a card without signatures, and shows none', async () => {
    host.serve('/plain.json', AgentCard.toJSON(cardOf()));
    const response = await register('/plain.json');
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().data.cardSignature, null);
  });

  it('refuses a signature whose key cannot be found: unknown kid, no jku, a key set that is not JSON, too large or missing', async () => {
    await serveSigned('/unknown-kid.json', ed, { alg: 'EdDSA', kid: 'nobody', jku: `${host.url}/jwks.json` });
    refused(await register('/unknown-kid.json'), /the key set at http:\/\/127\.0\.0\.1:\d+\/jwks\.json has no key with kid "nobody"/);

    await serveSigned('/no-jku.json', ed, { alg: 'EdDSA', kid: 'ed-1' });
    refused(await register('/no-jku.json'), /protected header has no "jku"/);

    host.answers.set('/not-json', { status: 200, contentType: 'text/html', body: '<html>keys</html>' });
    await serveSigned('/not-json.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku: `${host.url}/not-json` });
    refused(await register('/not-json.json'), /the key set at http:\/\/127\.0\.0\.1:\d+\/not-json is not JSON/);

    host.serve('/huge', { keys: [ed.jwk], padding: 'x'.repeat(100_000) });
    await serveSigned('/huge.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku: `${host.url}/huge` });
    refused(await register('/huge.json'), /answer was too large/);

    await serveSigned('/gone.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku: `${host.url}/gone` });
    refused(await register('/gone.json'), /answered HTTP 404/);

    // A key of the wrong type for the algorithm the header names.
    await serveSigned('/wrong-type.json', es, { alg: 'ES256', kid: 'ed-1', jku: `${host.url}/jwks.json` });
    refused(await register('/wrong-type.json'), /cannot check it: it is not a P-256 key/);
  });

  it('does not fetch a key set from a private address unless private endpoints are allowed', async () => {
    const signed = await serveSigned('/private.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku: `${host.url}/jwks.json?private` });
    const guarded = createOutboundClient({ allowPrivate: false });
    try {
      const verifier = createCardSignatureVerifier({ outbound: guarded, allowPlainHttp: true, now: () => new Date().toISOString() });
      const outcome = await verifier.verify(signed);
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.problem, /could not be reached at a public address/);
      assert.ok(!host.requests.includes('/jwks.json?private'), 'the private key set was never requested');
      // And a plain-http jku is refused where private endpoints are not allowed.
      const strict = createCardSignatureVerifier({ outbound: guarded, allowPlainHttp: false, now: () => new Date().toISOString() });
      const plain = await strict.verify(signed);
      assert.match(plain.ok ? '' : plain.problem, /is not an https URL/);
    } finally {
      await guarded.close();
    }
  });

  it('re-checks the signature when the owner refreshes the agent from its card', async () => {
    const jku = `${host.url}/jwks.json`;
    await serveSigned('/refresh.json', ed, { alg: 'EdDSA', kid: 'ed-1', jku });
    const agent = (await register('/refresh.json')).json().data;
    assert.equal(agent.cardSignature.kid, 'ed-1');
    const patch = (path: string) => app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { manifestUrl: `${host.url}${path}` } });

    const signed = await serveSigned('/refresh-bad.json', es, { alg: 'ES256', kid: 'es-1', jku });
    host.serve('/refresh-bad.json', { ...signed, name: 'Someone Else' });
    refused(await patch('/refresh-bad.json'), /signature 1 does not verify with the key "es-1"/);
    const kept = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data;
    assert.equal(kept.manifestUrl, `${host.url}/refresh.json`);
    assert.equal(kept.cardSignature.kid, 'ed-1');

    host.serve('/refresh-plain.json', AgentCard.toJSON(cardOf()));
    const unsigned = await patch('/refresh-plain.json');
    assert.equal(unsigned.statusCode, 200, unsigned.body);
    assert.equal(unsigned.json().data.cardSignature, null);
  });

  it("signs the service's own card with the instance key, published at /.well-known/jwks.json", async () => {
    const served = await fetch(`${baseUrl}/.well-known/agent-card.json`);
    const card = (await served.json()) as Record<string, unknown> & { signatures: { protected: string }[] };
    assert.equal(card.signatures.length, 1);
    const header = JSON.parse(Buffer.from(card.signatures[0]!.protected, 'base64url').toString('utf8'));
    assert.equal(header.alg, 'EdDSA');
    assert.equal(header.jku, `${baseUrl}/.well-known/jwks.json`);
    const keys = await fetch(header.jku);
    assert.match(keys.headers.get('content-type') ?? '', /^application\/jwk-set\+json/);
    const set = (await keys.json()) as { keys: { kid: string; kty: string; crv: string }[] };
    assert.deepEqual(
      set.keys.map((k) => [k.kid, k.kty, k.crv]),
      [[header.kid, 'OKP', 'Ed25519']],
    );

    // The registry's own verifier takes it...
    const outbound = createOutboundClient({ allowPrivate: true });
    try {
      const verifier = createCardSignatureVerifier({ outbound, allowPlainHttp: true, now: () => new Date().toISOString() });
      const outcome = await verifier.verify(card);
      assert.equal(outcome.ok && outcome.signature?.kid, header.kid);
      const changed = await verifier.verify({ ...card, description: 'Something else' });
      assert.equal(changed.ok, false);
    } finally {
      await outbound.close();
    }
    // ...and so does the A2A SDK's, with the key from the set.
    const { verifyAgentCardSignature } = await import('@a2a-js/sdk');
    // (It canonicalises what it is given through AgentCard.fromJSON, so it takes the card as JSON.)
    await verifyAgentCardSignature(async () => set.keys[0] as jose.JWK)(card as unknown as AgentCard);
  });
});

describe('identity shown on /v0.1, the AI Catalog and tasks', () => {
  let app: TestApp;
  let host: Awaited<ReturnType<typeof startHost>>;
  let token: string;

  before(async () => {
    [host, app] = await Promise.all([startHost(), startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true', PUBLIC_URL: 'https://registry.example.test' })]);
    token = (await app.signup()).token;
  });
  after(async () => {
    await app.close();
    await host.close();
  });

  it('carries identityLevel and verifiedDomain in /v0.1 _meta, the catalog and a task naming the agent, before and after the domain is verified', async () => {
    const agent = await registerAgent(app, token, { protocols: ['mcp'], endpoint: `${host.url}/mcp` });
    const server = async () =>
      (await app.request({ method: 'GET', url: `/v0.1/servers/${encodeURIComponent(`test.example.registry/${agent.slug}`)}/versions/latest` })).json();
    const entry = async () =>
      (
        (await app.request({ method: 'GET', url: '/.well-known/ai-catalog.json' })).json().entries as { identifier: string; metadata: Record<string, string> }[]
      ).find((e) => e.identifier.endsWith(`:agent:${agent.slug}`))!;
    const namespaced = (await server())._meta['io.agentry/identity'];
    assert.deepEqual(namespaced, { identityLevel: 'none', verifiedDomain: null, cardSignature: null });
    assert.equal((await entry()).metadata.identityLevel, 'none');

    const issued = (await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/domain`, token })).json().data;
    host.serve('/.well-known/agentry.json', { agents: [{ agentId: agent.id, token: issued.token }] });
    const verified = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/domain/verify`, token });
    assert.equal(verified.statusCode, 200, verified.body);
    const domain = new URL(host.url).host;
    assert.deepEqual((await server())._meta['io.agentry/identity'], { identityLevel: 'domain', verifiedDomain: domain, cardSignature: null });
    assert.deepEqual([(await entry()).metadata.identityLevel, (await entry()).metadata.verifiedDomain], ['domain', domain]);
    const listed = (await app.request({ method: 'GET', url: `/v0.1/servers?search=${agent.slug}` })).json();
    assert.equal(listed.servers[0]._meta['io.agentry/identity'].identityLevel, 'domain');
    // A task naming it says who it is, too.
    const task = await submitTask(app, token, { agentId: agent.id, capabilities: undefined });
    const named = (task.assignedAgent ?? task.requestedAgent) as { identityLevel: string; verifiedDomain: string };
    assert.deepEqual([named.identityLevel, named.verifiedDomain], ['domain', domain]);
  });
});
