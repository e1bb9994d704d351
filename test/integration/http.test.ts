import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';

describe('HTTP conventions', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ BODY_LIMIT_BYTES: '2048' });
  });
  after(() => app.close());

  it('answers health and readiness', async () => {
    assert.deepEqual((await app.request({ method: 'GET', url: '/health' })).json(), { status: 'ok' });
    const ready = await app.request({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
  });

  it('answers an unknown route with a JSON 404', async () => {
    const body = expectError(await app.request({ method: 'GET', url: '/v1/does-not-exist' }), 404, 'NOT_FOUND');
    assert.match(body.message, /does-not-exist/);
  });

  it('answers malformed JSON with 400, not 500', async () => {
    expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: '{"email": "a@b.co",' }), 400, 'BAD_REQUEST');
  });

  it('takes an empty JSON body as no body: optional bodies pass, required ones are named', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token);
    const beat = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, rawBody: '' });
    assert.equal(beat.statusCode, 200, beat.body);
    assert.equal(beat.json().data.id, agent.id);
    assert.equal((await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token })).statusCode, 200, 'no body at all');
    const wrong = expectError(await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body: { status: 5 } }), 400, 'BAD_REQUEST');
    assert.equal(wrong.details?.[0]?.path, '/body/status');
    const body = expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: '' }), 400, 'BAD_REQUEST');
    assert.match(body.message, /body/);
    expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: ' ' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: '{"__proto__": {"x": 1}, "email": "a@b.co"}' }), 400, 'BAD_REQUEST');
  });

  it('answers bad percent-encoding and over-long path segments in the same JSON error body', async () => {
    const badUrl = expectError(await app.request({ method: 'GET', url: '/v1/agents/%zz' }), 400, 'BAD_REQUEST');
    assert.match(badUrl.message, /percent-encoding/);
    const long = expectError(await app.request({ method: 'GET', url: `/v1/agents/${'a'.repeat(150)}` }), 400, 'BAD_REQUEST');
    assert.match(long.message, /too long/);
    assert.deepEqual(Object.keys(long).sort(), ['code', 'message']);
  });

  it('answers a non-JSON content type with 400', async () => {
    const response = await app.request({ method: 'POST', url: '/v1/auth/signup', headers: { 'content-type': 'text/plain' }, rawBody: 'hello' });
    expectError(response, 400, 'BAD_REQUEST');
  });

  it('answers a body over the limit with 413', async () => {
    const response = await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: 'a@b.co', password: 'x'.repeat(4000) } });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('names the failing field in validation details', async () => {
    const body = expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: 'a@b.co' } }), 400, 'BAD_REQUEST');
    assert.deepEqual(body.details?.map((d) => d.path), ['/body/password']);
  });

  it('does not coerce body types: a number where a string belongs is 400', async () => {
    const body = expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: 'a@b.co', password: 12345678 } }), 400, 'BAD_REQUEST');
    assert.equal(body.details?.[0]?.path, '/body/password');
  });

  it('gives every response a request id and security headers, keeping a sane incoming id', async () => {
    const fresh = await app.request({ method: 'GET', url: '/health' });
    assert.match(String(fresh.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.equal(fresh.headers['x-content-type-options'], 'nosniff');
    assert.equal(fresh.headers['x-frame-options'], 'DENY');
    const kept = await app.request({ method: 'GET', url: '/health', headers: { 'x-request-id': 'trace-abc-12345' } });
    assert.equal(kept.headers['x-request-id'], 'trace-abc-12345');
    const replaced = await app.request({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id <script>' } });
    assert.notEqual(replaced.headers['x-request-id'], 'bad id <script>');
  });

  it('publishes an OpenAPI 3.1 document generated from the route schemas, and a docs page', async () => {
    const spec = (await app.request({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(spec.openapi, '3.1.0');
    for (const path of ['/v1/auth/signup', '/v1/api-keys', '/v1/api-keys/{id}', '/v1/users', '/v1/users/me', '/v1/users/check']) {
      assert.ok(spec.paths[path], `${path} documented`);
    }
    assert.ok(spec.paths['/v1/users'].post.requestBody, 'request body documented');
    const docs = await app.request({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After and a JSON body past the limit', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '3' });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await app.request({ method: 'GET', url: '/v1/users/check?username=free_name' })).statusCode, 200);
      const limited = await app.request({ method: 'GET', url: '/v1/users/check?username=free_name' });
      expectError(limited, 429, 'RATE_LIMITED');
      assert.ok(Number(limited.headers['retry-after']) > 0);
    } finally {
      await app.close();
    }
  });

  it('tells the client its budget on every limited response, and never limits /health', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '2' });
    try {
      const first = await app.request({ method: 'GET', url: '/v1/users/check?username=free_name' });
      assert.equal(first.headers['x-ratelimit-limit'], '2');
      assert.equal(first.headers['x-ratelimit-remaining'], '1');
      assert.ok(Number(first.headers['x-ratelimit-reset']) > 0);
      for (let i = 0; i < 5; i++) {
        const health = await app.request({ method: 'GET', url: '/health' });
        assert.equal(health.statusCode, 200);
        assert.equal(health.headers['x-ratelimit-limit'], undefined);
      }
      assert.equal((await app.request({ method: 'GET', url: '/v1/users/check?username=free_name' })).headers['x-ratelimit-remaining'], '0');
    } finally {
      await app.close();
    }
  });

  it('stops a flood of wrong credentials before it reaches the credential lookup', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '3' });
    try {
      const wrong = { authorization: 'Bearer agk_not_a_real_key' };
      for (let i = 0; i < 3; i++) expectError(await app.request({ method: 'GET', url: '/v1/users/me', headers: wrong }), 401, 'UNAUTHORIZED');
      expectError(await app.request({ method: 'GET', url: '/v1/users/me', headers: wrong }), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });

  it('counts a route with its own limit apart from the global budget', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '3' });
    try {
      // Three failed logins use the login budget (20), not the global one (3).
      for (let i = 0; i < 3; i++) {
        expectError(await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: 'nobody@example.test', password: 'wrong password' } }), 401, 'UNAUTHORIZED');
      }
      assert.equal((await app.request({ method: 'GET', url: '/v1/users/check?username=free_name' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it('shares the count across nodes through Redis when REDIS_URL is set', async () => {
    const env = { RATE_LIMIT_MAX: '4', REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    const [first, second] = await Promise.all([startTestApp(env), startTestApp(env)]);
    // A unique client address keeps this test's counter apart from other runs against the same Redis.
    const address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const hit = (app: TestApp) => app.server.inject({ method: 'GET', url: '/v1/users/check?username=x', remoteAddress: address });
    try {
      assert.equal((await hit(first)).statusCode, 200);
      assert.equal((await hit(second)).statusCode, 200);
      assert.equal((await hit(first)).statusCode, 200);
      assert.equal((await hit(second)).statusCode, 200);
      expectError(await hit(first), 429, 'RATE_LIMITED');
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('gives the credential routes a tighter budget than the rest of the API', async () => {
    const app = await startTestApp();
    try {
      let status = 0;
      for (let i = 0; i < 21; i++) {
        status = (await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: 'nobody@example.test', password: 'wrong password' } })).statusCode;
      }
      assert.equal(status, 429);
    } finally {
      await app.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes a request that is in flight when the server closes', async () => {
    let entered: () => void = () => {};
    const handling = new Promise<void>((resolve) => (entered = resolve));
    const slow = await startTestApp({}, {
      beforeReady: (server) => {
        server.get('/slow', { config: { auth: 'none' } }, async () => {
          entered();
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { done: true };
        });
      },
    });
    await slow.server.listen({ port: 0, host: '127.0.0.1' });
    const address = slow.server.server.address();
    assert.ok(address && typeof address === 'object');
    const inFlight = fetch(`http://127.0.0.1:${address.port}/slow`);
    await handling;
    const closed = slow.close();
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { done: true });
    await closed;
  });

  it('keeps the database open for a request whose client has already gone', async () => {
    let outcome = 'not run';
    let entered: () => void = () => {};
    const handling = new Promise<void>((resolve) => (entered = resolve));
    // A grace far longer than any slow machine's close: waiting it out is the failure looked for.
    const app = await startTestApp({ SHUTDOWN_GRACE_MS: '60000' }, {
      beforeReady: (server) => {
        server.get('/slow-db', { config: { auth: 'none' } }, async () => {
          entered();
          await new Promise((resolve) => setTimeout(resolve, 300));
          try {
            await app.database.db.selectFrom('accounts').select('id').execute();
            outcome = 'query ran';
          } catch (error) {
            outcome = `query failed: ${(error as Error).message}`;
          }
          return { done: true };
        });
      },
    });
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.server.address();
    assert.ok(address && typeof address === 'object');
    const aborter = new AbortController();
    const request = fetch(`http://127.0.0.1:${address.port}/slow-db`, { signal: aborter.signal }).catch(() => null);
    await handling;
    aborter.abort();
    await request;
    const closing = Date.now();
    await app.close();
    assert.equal(outcome, 'query ran');
    // The gone client's request is no longer counted once its handler answered: shutdown does not
    // wait out the grace for it. (Close also drops the test's database, which can take seconds on a
    // loaded machine: hence the wide margin.)
    assert.ok(Date.now() - closing < 30_000, `close took ${Date.now() - closing} ms`);
  });
});
