import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { agentBody, newAgentKey, registerAgent, registerProvisional, uniqueName } from '../helpers/agents.ts';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/receipts.json', import.meta.url), 'utf8'));

describe('registry: POST /v1/agents', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  before(async () => {
    app = await startTestApp();
    owner = await app.signup();
  });
  after(() => app.close());

  it('(none) -> active: registers with every field and answers the spec fields', async () => {
    const body = agentBody({
      name: 'Café Summariser!!',
      longDescription: '# Long\nmarkdown',
      capabilities: ['text-summarization', 'pdf'],
      tags: ['docs'],
      docsUrl: 'https://docs.example.test',
      authType: 'api_key',
      version: '2.1.0-beta.1',
      inputSchema: JSON.stringify({ length: { type: 'string', enum: ['short', 'long'], default: 'short' }, url: { type: 'string', required: true } }),
      twitterUrl: 'https://x.example.test/summariser',
      protocols: ['rest', 'mcp'],
      categories: ['productivity', 'communication'],
    });
    const response = await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body });
    assert.equal(response.statusCode, 201, response.body);
    const agent = response.json().data;
    assert.equal(agent.slug, 'cafe-summariser');
    assert.equal(agent.status, 'active');
    assert.equal(agent.ownerId, owner.accountId);
    assert.equal(agent.version, '2.1.0-beta.1');
    assert.equal(agent.visibility, 'public');
    assert.equal(agent.deliveryMode, 'webhook');
    assert.deepEqual(agent.protocols, ['rest', 'mcp']);
    assert.deepEqual(agent.capabilities, ['text-summarization', 'pdf']);
    assert.equal(typeof agent.inputSchema, 'string');
    assert.deepEqual(JSON.parse(agent.inputSchema).length.enum, ['short', 'long']);
    for (const field of [
      'id',
      'name',
      'slug',
      'description',
      'protocols',
      'categories',
      'capabilities',
      'tags',
      'endpoint',
      'docsUrl',
      'authType',
      'version',
      'status',
      'ownerId',
      'createdAt',
      'updatedAt',
    ]) {
      assert.ok(field in agent, field);
    }
    assert.equal(agent.availability, 'unknown', 'never heard from yet');
    assert.equal(agent.hasWebhookSecret, true);
    assert.match(agent.webhookSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const fetched = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` });
    const { webhookSecret, ...view } = agent;
    assert.deepEqual(fetched.json().data, view, 'the secret is shown only at registration');
    assert.ok(webhookSecret);
  });

  it('names every missing or wrong field at once, for the registration and any other body', async () => {
    const missing = expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: { categories: ['productivity'] } }),
      400,
      'BAD_REQUEST',
    );
    assert.deepEqual(
      missing.details?.map((d) => d.path),
      ['/body/name', '/body/description', '/body/protocols'],
    );
    assert.match(missing.message, /name, description, protocols are required/);
    // Categories too, with the ones there are to choose from; a category that is not one of them is refused, listing them.
    const nothing = expectError(await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: {} }), 400, 'BAD_REQUEST');
    assert.deepEqual(
      nothing.details?.map((d) => d.path),
      ['/body/name', '/body/description', '/body/protocols', '/body/categories'],
    );
    assert.match(nothing.message, /name, description, protocols, categories are required.*the categories are: coding, data, .*productivity/);
    const made = await registerAgent(app, owner.token);
    for (const [method, url, body] of [
      ['POST', '/v1/agents', agentBody({ categories: ['productivity', 'development'] })],
      [
        'POST',
        '/v1/agents/provisional',
        { name: uniqueName(), description: 'd', deliveryMode: 'poll', pubkey: newAgentKey().pubkey, categories: ['productivity', 'development'] },
      ],
      ['PATCH', `/v1/agents/${made.id}`, { categories: ['productivity', 'development'] }],
    ] as const) {
      const unknown = expectError(await app.request({ method, url, token: owner.token, body }), 400, 'BAD_REQUEST');
      assert.deepEqual(
        unknown.details?.map((d) => d.path),
        ['/body/categories/1'],
        `${method} ${url}`,
      );
      assert.match(unknown.message, /"development" is not a category; the categories are: coding, data, /, `${method} ${url}`);
    }
    assert.deepEqual(
      (await app.request({ method: 'GET', url: `/v1/agents/${made.id}` })).json().data.categories,
      made.categories,
      'the refused change left it as it was',
    );
    // Schema-level: two wrong fields and an unknown one in one request are all named.
    const wrong = expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: { ...agentBody(), version: 7, protocols: 'rest', colour: 'blue' } }),
      400,
      'BAD_REQUEST',
    );
    const paths = new Set(wrong.details?.map((d) => d.path));
    for (const path of ['/body/version', '/body/protocols', '/body/colour']) assert.ok(paths.has(path), `${path} in ${JSON.stringify(wrong.details)}`);
    assert.match(wrong.message, /more: see details/);
    const signup = expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', body: {} }), 400, 'BAD_REQUEST');
    assert.deepEqual(signup.details?.map((d) => d.path).sort(), ['/body/email', '/body/password']);
  });

  it('registers an endpoint the service will refuse to call, with a warning saying so', async () => {
    const local = await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody({ endpoint: 'http://127.0.0.1:8787/tasks' }) });
    assert.equal(local.statusCode, 201, local.body);
    const [warning, ...rest] = local.json().warnings as { path: string; message: string }[];
    assert.equal(rest.length, 0);
    assert.equal(warning?.path, '/body/endpoint');
    assert.match(warning!.message, /127\.0\.0\.1 is not a public address.*ALLOW_PRIVATE_ENDPOINTS/);
    const named = await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody({ endpoint: 'http://localhost:3000/hook' }) });
    assert.match(named.json().warnings[0].message, /localhost is a loopback name/);
    const provisional = await app.request({
      method: 'POST',
      url: '/v1/agents/provisional',
      body: { name: uniqueName('Local'), description: 'Runs on a laptop', endpoint: 'http://[::1]:8080/hook', pubkey: newAgentKey().pubkey },
    });
    assert.equal(provisional.statusCode, 201, provisional.body);
    assert.equal(provisional.json().warnings[0].path, '/body/endpoint');
    // A public endpoint, or none, registers without warnings.
    assert.deepEqual((await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody() })).json().warnings, []);
    const allowing = await startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true' });
    try {
      const { token } = await allowing.signup();
      const allowed = await allowing.request({ method: 'POST', url: '/v1/agents', token, body: agentBody({ endpoint: 'http://127.0.0.1:8787/tasks' }) });
      assert.deepEqual(allowed.json().warnings, []);
    } finally {
      await allowing.close();
    }
  });

  it('defaults version to 1.0.0 and accepts an API key as the credential', async () => {
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'cli' } })).json().data.key;
    const agent = (await app.request({ method: 'POST', url: '/v1/agents', token: key, body: agentBody() })).json().data;
    assert.equal(agent.version, '1.0.0');
    assert.equal(agent.ownerId, owner.accountId);
  });

  it('accepts inputSchema given as an object and a poll agent without an endpoint', async () => {
    const agent = await registerAgent(app, owner.token, { endpoint: undefined, deliveryMode: 'poll', inputSchema: { n: { type: 'number', default: 3 } } });
    assert.equal(agent.deliveryMode, 'poll');
    assert.equal(agent.endpoint, null);
    assert.equal(agent.inputSchema, '{"n":{"type":"number","default":3}}');
    assert.equal(agent.webhookSecret, undefined, 'a poll agent gets no webhook secret');
    assert.equal(agent.hasWebhookSecret, false);
  });

  it('accepts our input schema extension: a label per field and labels for enum values, keyed by the value as text', async () => {
    const inputSchema = {
      max_pages: { type: 'number', label: 'Pages at most', enum: [1, 5], enumLabels: { '1': 'One page', '5': 'Five pages' } },
      language: { type: 'string', enum: ['de', 'fr'], enumLabels: { de: 'German' } },
    };
    const agent = await registerAgent(app, owner.token, { inputSchema });
    assert.deepEqual(JSON.parse(agent.inputSchema as string), inputSchema);
  });

  it('an agent registered without an endpoint polls; one that asks for webhooks without an endpoint is 400', async () => {
    const agent = await registerAgent(app, owner.token, { endpoint: undefined });
    assert.equal(agent.deliveryMode, 'poll');
    assert.equal(agent.webhookSecret, undefined);
    const body = expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody({ endpoint: undefined, deliveryMode: 'webhook' }) }),
      400,
      'BAD_REQUEST',
    );
    assert.ok(body.details?.some((d) => d.path === '/body/endpoint'));
    const poller = await registerAgent(app, owner.token, { deliveryMode: 'poll' });
    assert.equal(poller.deliveryMode, 'poll', 'an agent with an endpoint may still choose to poll');
    assert.equal(poller.webhookSecret, undefined);
  });

  it('rotating the webhook secret replaces the one given at registration', async () => {
    const agent = await registerAgent(app, owner.token);
    const rotated = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/webhook-secret`, token: owner.token });
    assert.equal(rotated.statusCode, 201);
    assert.match(rotated.json().data.secret, /^whsec_/);
    assert.notEqual(rotated.json().data.secret, agent.webhookSecret);
  });

  it('refuses an inputSchema text nesting deeper than 64 levels with 400 naming it', async () => {
    const deep = `{"n":{"type":"string","description":"x","enum":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const body = expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody({ inputSchema: deep }) }),
      400,
      'BAD_REQUEST',
    );
    assert.equal(body.details?.[0]?.path, '/body/inputSchema');
    assert.match(body.details?.[0]?.message ?? '', /deeper than 64/);
  });

  it('answers 409 on a slug collision', async () => {
    const name = uniqueName('Collider');
    await registerAgent(app, owner.token, { name });
    expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody({ name: name.toUpperCase() + '!' }) }),
      409,
      'CONFLICT',
    );
  });

  it('rejects each kind of bad input with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, '/body/name'],
      [{ name: '' }, '/body/name'],
      [{ name: '!!!' }, '/body/name'],
      [{ name: 'x'.repeat(101) }, '/body/name'],
      [{ description: undefined }, '/body/description'],
      [{ endpoint: undefined, deliveryMode: 'webhook' }, '/body/endpoint'],
      [{ endpoint: 'ftp://agent.example.test' }, '/body/endpoint'],
      [{ endpoint: 'javascript:alert(1)' }, '/body/endpoint'],
      [{ protocols: [] }, '/body/protocols'],
      [{ protocols: ['soap'] }, '/body/protocols/0'],
      [{ protocols: 'rest' }, '/body/protocols'],
      [{ categories: ['Not A Slug'] }, '/body/categories/0'],
      [{ categories: undefined }, '/body/categories'],
      [{ version: '1.0' }, '/body/version'],
      [{ authType: 'magic' }, '/body/authType'],
      [{ visibility: 'secret' }, '/body/visibility'],
      [{ docsUrl: 'not a url' }, '/body/docsUrl'],
      [{ inputSchema: '{not json' }, '/body/inputSchema'],
      [{ inputSchema: '[]' }, '/body/inputSchema'],
      [{ inputSchema: JSON.stringify({ a: { type: 'date' } }) }, '/body/inputSchema/a/type'],
      [{ inputSchema: JSON.stringify({ a: { type: 'number', enum: ['x'] } }) }, '/body/inputSchema/a/enum'],
      [{ inputSchema: JSON.stringify({ a: { type: 'string', enum: ['x'], default: 'y' } }) }, '/body/inputSchema/a/default'],
      [{ inputSchema: JSON.stringify({ 'bad name': { type: 'string' } }) }, '/body/inputSchema/bad name'],
      [{ inputSchema: JSON.stringify({ a: { type: 'string', label: '' } }) }, '/body/inputSchema/a/label'],
      [{ inputSchema: JSON.stringify({ a: { type: 'string', label: 'Two\nlines' } }) }, '/body/inputSchema/a/label'],
      [{ inputSchema: JSON.stringify({ a: { type: 'string', enumLabels: { x: 'X' } } }) }, '/body/inputSchema/a/enumLabels'],
      [{ inputSchema: JSON.stringify({ a: { type: 'string', enum: ['x'], enumLabels: ['X'] } }) }, '/body/inputSchema/a/enumLabels'],
      [{ inputSchema: JSON.stringify({ a: { type: 'string', enum: ['x'], enumLabels: { y: 'Y' } } }) }, '/body/inputSchema/a/enumLabels/y'],
      [{ inputSchema: JSON.stringify({ a: { type: 'number', enum: [1], enumLabels: { '1': 'x'.repeat(101) } } }) }, '/body/inputSchema/a/enumLabels/1'],
      [{ status: 'active' }, '/body/status'],
      [{ ownerId: 'someone' }, '/body/ownerId'],
      [{ visibility: 'org' }, '/body/orgId'],
      [{ orgId: 'x' }, '/body/orgId'],
    ];
    for (const [override, path] of cases) {
      const body = expectError(await app.request({ method: 'POST', url: '/v1/agents', token: owner.token, body: agentBody(override) }), 400, 'BAD_REQUEST');
      assert.ok(
        body.details?.some((d) => d.path === path),
        `${JSON.stringify(override)} -> ${JSON.stringify(body.details)}`,
      );
    }
  });

  it('needs a valid credential', async () => {
    expectError(await app.request({ method: 'POST', url: '/v1/agents', body: agentBody() }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'POST', url: '/v1/agents', token: 'agk_nope', body: agentBody() }), 401, 'UNAUTHORIZED');
  });
});

describe('registry: provisional registration and claims', () => {
  let app: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({ PROVISIONAL_RATE_LIMIT_MAX: '1000', PUBLIC_URL: 'https://agentry.example.test' }, { clock });
  });
  after(() => app.close());

  it('(none) -> provisional: answers data, message and claimUrl, storing one canonical key spelling', async () => {
    const key = newAgentKey();
    const urlSafeUnpadded = `ed25519:${Buffer.from(key.pubkey.slice(8), 'base64').toString('base64url')}`;
    const response = await app.request({
      method: 'POST',
      url: '/v1/agents/provisional',
      body: { name: uniqueName(), description: 'd', endpoint: 'https://p.example.test', pubkey: urlSafeUnpadded },
    });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body.data).sort(), ['id', 'name', 'ownerId', 'registrationPubkey', 'slug', 'status', 'webhookSecret']);
    assert.equal(body.data.status, 'provisional');
    assert.equal(body.data.ownerId, null);
    assert.equal(body.data.registrationPubkey, key.pubkey);
    assert.equal(body.claimUrl, `/v1/agents/${body.data.id}/claim/challenge`);
    assert.ok(body.message.includes(`https://agentry.example.test/claim/${body.data.id}`), body.message);
    assert.match(body.data.webhookSecret, /^whsec_/, 'a webhook agent gets its signing secret at registration');
    const agent = (await app.request({ method: 'GET', url: `/v1/agents/${body.data.id}` })).json().data;
    assert.equal(agent.status, 'provisional');
    assert.equal(agent.version, '1.0.0');
  });

  it('refuses malformed, small-order and non-canonical keys with 400', async () => {
    const bad = [
      'MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
      'ed25519:' + Buffer.alloc(31, 1).toString('base64'),
      'ed25519: 11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
      'ed25519:' + Buffer.alloc(32).toString('base64'),
      'ed25519:' + Buffer.from([1, ...Array(31).fill(0)]).toString('base64'),
      'ed25519:' + Buffer.from([0xec, ...Array(30).fill(0xff), 0x7f]).toString('base64'),
      'rsa:abc',
    ];
    for (const pubkey of bad) {
      const body = expectError(
        await app.request({
          method: 'POST',
          url: '/v1/agents/provisional',
          body: { name: uniqueName(), description: 'd', endpoint: 'https://p.example.test', pubkey },
        }),
        400,
        'BAD_REQUEST',
      );
      assert.match(body.message, /pubkey/, pubkey);
    }
  });

  it('refuses fields only owners set, and a webhook agent without endpoint; without one the agent polls', async () => {
    const key = newAgentKey();
    // inputSchema is not one of them: a provisional agent's tasks are read into its fields too.
    for (const extra of [{ visibility: 'private' }, { ownerId: 'x' }, { inputSchema: '{"text":{"type":"date"}}' }]) {
      expectError(
        await app.request({
          method: 'POST',
          url: '/v1/agents/provisional',
          body: { name: uniqueName(), description: 'd', endpoint: 'https://p.example.test', pubkey: key.pubkey, ...extra },
        }),
        400,
        'BAD_REQUEST',
      );
    }
    expectError(
      await app.request({
        method: 'POST',
        url: '/v1/agents/provisional',
        body: { name: uniqueName(), description: 'd', pubkey: key.pubkey, deliveryMode: 'webhook' },
      }),
      400,
      'BAD_REQUEST',
    );
    const poller = await app.request({ method: 'POST', url: '/v1/agents/provisional', body: { name: uniqueName(), description: 'd', pubkey: key.pubkey } });
    assert.equal(poller.statusCode, 201);
    assert.equal(poller.json().data.webhookSecret, undefined, 'a poll agent gets no webhook secret');
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${poller.json().data.id}` })).json().data.deliveryMode, 'poll');
  });

  it('issues a challenge of 64 hex characters valid 10 minutes, with instructions', async () => {
    const { id } = await registerProvisional(app);
    const response = await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` });
    assert.equal(response.statusCode, 200);
    const challenge = response.json().data;
    assert.equal(challenge.agentId, id);
    assert.match(challenge.nonce, /^[0-9a-f]{64}$/);
    assert.equal(Date.parse(challenge.expiresAt) - clock.now().getTime(), 10 * 60 * 1000);
    assert.match(challenge.instructions, /sign/i);
    expectError(await app.request({ method: 'GET', url: '/v1/agents/no-such-agent/claim/challenge' }), 404, 'NOT_FOUND');
  });

  it('provisional -> active: claims with the RFC 8032 test key and the vector signature', async () => {
    const person = await app.signup();
    const key = newAgentKey(Buffer.from(vectors.keys.A.seedHex, 'hex'));
    assert.equal(key.pubkey, vectors.claim.pubkey);
    const { id } = await registerProvisional(app, key);
    await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` });
    // Put the vector's nonce in place so its published signature is the one that claims.
    await app.database.db.updateTable('claim_challenges').set({ nonce: vectors.claim.nonce }).where('agent_id', '=', id).execute();
    const response = await app.request({
      method: 'POST',
      url: `/v1/agents/${id}/claim`,
      token: person.token,
      body: { signature: vectors.claim.signatureBase64url },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body.data).sort(), ['claimedAt', 'id', 'ownerId', 'status']);
    assert.equal(body.data.status, 'active');
    assert.equal(body.data.ownerId, person.accountId);
    assert.equal(typeof body.message, 'string');
    const agent = (await app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data;
    assert.equal(agent.status, 'active');
    assert.equal(agent.ownerId, person.accountId);
    assert.equal(agent.claimedAt, body.data.claimedAt);
    assert.equal(agent.registrationPubkey, key.pubkey);
  });

  it('accepts a standard base64 signature too', async () => {
    const person = await app.signup();
    const { id, key } = await registerProvisional(app);
    const nonce = (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce;
    const signature = Buffer.from(key.sign(nonce), 'base64url').toString('base64');
    assert.equal((await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature } })).statusCode, 200);
  });

  it('answers 400 without a challenge and after it expires', async () => {
    const person = await app.signup();
    const { id, key } = await registerProvisional(app);
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign('x'.repeat(64)) } }),
      400,
      'BAD_REQUEST',
    );
    const nonce = (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce;
    clock.advance(10 * 60 * 1000 + 1000);
    assert.match(
      expectError(
        await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(nonce) } }),
        400,
        'BAD_REQUEST',
      ).message,
      /expired/,
    );
  });

  it('answers 403 for a signature by another key or over another message, and keeps the challenge usable', async () => {
    const person = await app.signup();
    const { id, key } = await registerProvisional(app);
    const nonce = (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce;
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: newAgentKey().sign(nonce) } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(nonce + 'x') } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: 'not base64!' } }),
      400,
      'BAD_REQUEST',
    );
    assert.equal(
      (await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(nonce) } })).statusCode,
      200,
    );
  });

  it("keeps the five most recent challenges valid, so anyone asking for one does not cancel the owner's", async () => {
    const person = await app.signup();
    const { id, key } = await registerProvisional(app);
    const challenge = async () => (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce as string;
    const owners = await challenge();
    const others = [await challenge(), await challenge(), await challenge(), await challenge()];
    assert.equal(new Set([owners, ...others]).size, 5);
    const response = await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(owners) } });
    assert.equal(response.statusCode, 200, response.body);
    // A claim spends them all: the agent is claimed, so any other is 409.
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(others[3]!) } }),
      409,
      'CONFLICT',
    );
  });

  it('answers a signature over a replaced challenge with 400 saying so, over an expired one with 400 saying so, and over none with 403', async () => {
    const person = await app.signup();
    const { id, key } = await registerProvisional(app);
    const challenge = async () => (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce as string;
    const claim = (nonce: string) => app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(nonce) } });
    const first = await challenge();
    const later = [];
    for (let i = 0; i < 5; i++) later.push(await challenge());
    assert.match(expectError(await claim(first), 400, 'BAD_REQUEST').message, /replaced/);
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: newAgentKey().sign(later[0]!) } }),
      403,
      'FORBIDDEN',
    );
    clock.advance(10 * 60 * 1000 + 1000);
    assert.match(expectError(await claim(later[4]!), 400, 'BAD_REQUEST').message, /expired/);
    // Nothing was spent by the refusals: a fresh challenge claims.
    const fresh = await challenge();
    assert.equal((await claim(fresh)).statusCode, 200);
  });

  /** Ten claimants, shared by the concurrency tests: sign-ups have a per-address budget of their own. */
  let claimants: { token: string }[] | null = null;
  const tenPeople = async () => (claimants ??= await Promise.all(Array.from({ length: 10 }, () => app.signup())));

  it('answers 200 to concurrent challenge requests, and of concurrent claims over different valid challenges exactly one wins', async () => {
    const people = await tenPeople();
    const { id, key } = await registerProvisional(app);
    const issued = await Promise.all(Array.from({ length: 20 }, () => app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })));
    assert.deepEqual([...new Set(issued.map((r) => r.statusCode))], [200]);
    const nonces = issued.map((r) => r.json().data.nonce as string);
    const valid = (
      await app.database.db.selectFrom('claim_challenges').select('nonce').where('agent_id', '=', id).where('replaced_at', 'is', null).execute()
    ).map((row) => row.nonce);
    assert.equal(valid.length, 5, 'five stay valid however the requests interleave');
    assert.ok(valid.every((nonce) => nonces.includes(nonce)));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: people[i % 10]!.token, body: { signature: key.sign(valid[i % 5]!) } }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 409).length, 49, JSON.stringify(statuses));
    const winner = results.find((r) => r.statusCode === 200)!.json().data.ownerId;
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data.ownerId, winner);
    assert.equal(
      (await app.database.db.selectFrom('claim_challenges').select('nonce').where('agent_id', '=', id).execute()).length,
      0,
      'the claim spent them all',
    );
  });

  it('answers 409 for a second claim, a challenge of a claimed agent and an owned agent', async () => {
    const person = await app.signup();
    const { id, key } = await registerProvisional(app);
    const nonce = (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce;
    assert.equal(
      (await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(nonce) } })).statusCode,
      200,
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: person.token, body: { signature: key.sign(nonce) } }),
      409,
      'CONFLICT',
    );
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` }), 409, 'CONFLICT');
    const owned = await registerAgent(app, person.token);
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${owned.id}/claim/challenge` }), 409, 'CONFLICT');
  });

  it('needs a credential to claim', async () => {
    const { id, key } = await registerProvisional(app);
    const nonce = (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce;
    expectError(await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, body: { signature: key.sign(nonce) } }), 401, 'UNAUTHORIZED');
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: 'ags_wrong', body: { signature: key.sign(nonce) } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('lets exactly one of 50 concurrent valid claims win', async () => {
    const people = await tenPeople();
    const { id, key } = await registerProvisional(app);
    const nonce = (await app.request({ method: 'GET', url: `/v1/agents/${id}/claim/challenge` })).json().data.nonce;
    const signature = key.sign(nonce);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => app.request({ method: 'POST', url: `/v1/agents/${id}/claim`, token: people[i % 10]!.token, body: { signature } })),
    );
    const statuses = results.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 409).length, 49);
    const winner = results.find((r) => r.statusCode === 200)!.json().data.ownerId;
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data.ownerId, winner);
  });
});

describe('registry: provisional rate limit', () => {
  it('limits anonymous registrations per address', async () => {
    const app = await startTestApp({ PROVISIONAL_RATE_LIMIT_MAX: '2' });
    try {
      await registerProvisional(app);
      await registerProvisional(app);
      const key = newAgentKey();
      expectError(
        await app.request({
          method: 'POST',
          url: '/v1/agents/provisional',
          body: { name: uniqueName(), description: 'd', endpoint: 'https://p.example.test', pubkey: key.pubkey },
        }),
        429,
        'RATE_LIMITED',
      );
    } finally {
      await app.close();
    }
  });
});
