import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { registerAgent } from '../helpers/agents.ts';
import { deepJsonText } from '../helpers/route-inputs.ts';
import { png as pngFixture } from '../helpers/images.ts';

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
    const wrong = expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body: { status: 5 } }),
      400,
      'BAD_REQUEST',
    );
    assert.equal(wrong.details?.[0]?.path, '/body/status');
    const body = expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: '' }), 400, 'BAD_REQUEST');
    assert.match(body.message, /body/);
    expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: ' ' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: '{"__proto__": {"x": 1}, "email": "a@b.co"}' }), 400, 'BAD_REQUEST');
  });

  it('answers bad percent-encoding and over-long path segments in the same JSON error body', async () => {
    const badUrl = expectError(await app.request({ method: 'GET', url: '/v1/agents/%zz' }), 400, 'BAD_REQUEST');
    assert.match(badUrl.message, /percent-encoding/);
    const long = expectError(await app.request({ method: 'GET', url: `/v1/agents/${'a'.repeat(150)}` }), 414, 'URI_TOO_LONG');
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
    assert.deepEqual(
      body.details?.map((d) => d.path),
      ['/body/password'],
    );
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

describe('input hygiene', () => {
  let app: TestApp;
  let token: string;
  before(async () => {
    app = await startTestApp();
    ({ token } = await app.signup());
  });
  after(() => app.close());

  it('refuses a body nesting deeper than 64 levels with 400 before any route sees it', async () => {
    for (const text of [deepJsonText(65), deepJsonText(5000, 'object'), `{"description":"x","input":${deepJsonText(6000, 'object')}}`]) {
      const body = expectError(await app.request({ method: 'POST', url: '/v1/tasks', token, rawBody: text }), 400, 'BAD_REQUEST');
      assert.match(body.message, /deeper than 64/);
    }
    // Brackets inside strings are text, and 64 levels are allowed.
    const inString = await app.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: '['.repeat(400) } });
    assert.notEqual(inString.statusCode, 400, inString.body);
    const atLimit = expectError(
      await app.request({ method: 'POST', url: '/v1/auth/signup', rawBody: `{"email":"a@b.co","password":"12345678","x":${deepJsonText(63)}}` }),
      400,
      'BAD_REQUEST',
    );
    assert.equal(atLimit.details?.[0]?.path, '/body/x');
  });

  it('refuses every offset past its maximum and every limit past its own with 400', async () => {
    for (const url of ['/v1/tasks', '/v1/agents', '/v1/api-keys', '/v1/social/hashtags', '/v1/ledger', '/v1/social/notifications', '/v1/trust-receipts']) {
      for (const offset of ['100000000000000000000', '1e20', '1000001']) {
        const body = expectError(await app.request({ method: 'GET', url: `${url}?offset=${offset}`, token }), 400, 'BAD_REQUEST');
        assert.equal(body.details?.[0]?.path, '/querystring/offset', `${url}?offset=${offset}: ${body.message}`);
      }
      expectError(await app.request({ method: 'GET', url: `${url}?limit=101`, token }), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'GET', url: '/v1/social/hashtags?offset=100001' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/social/search?q=x&offset=100001' }), 400, 'BAD_REQUEST');
    assert.equal((await app.request({ method: 'GET', url: '/v1/social/hashtags?offset=100000' })).statusCode, 200);
  });

  it('reads query numbers strictly: hexadecimal, exponents, spaces, brackets and repeats are 400', async () => {
    for (const query of [
      'limit=0x10',
      'limit=1e1',
      'limit=%205',
      'limit=5%20',
      'limit=%2B5',
      'limit=05',
      'limit=',
      'limit[]=1',
      'limit=1&limit=2',
      'limit=1.0',
      'limit=true',
      'offest=1',
    ]) {
      const body = expectError(await app.request({ method: 'GET', url: `/v1/agents?${query}`, token }), 400, 'BAD_REQUEST');
      assert.match(body.details?.[0]?.path ?? '', /^\/querystring/, query);
    }
    const page = await app.request({ method: 'GET', url: '/v1/agents?limit=5&offset=0', token });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.json().pagination.limit, 5);
    assert.equal((await app.request({ method: 'GET', url: '/v1/social/search?q=0x10&tab=agents' })).statusCode, 200);
  });

  it('refuses NUL and lone surrogates anywhere with 400 naming where, and stores nothing', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', '/v1/social/search?q=%00', undefined, '/querystring/q'],
      ['GET', '/v1/social/search?q=a%00b&tab=agents', undefined, '/querystring/q'],
      ['GET', '/v1/agents/%00', undefined, '/params/id'],
      ['GET', '/v1/social/users/x%00/profile', undefined, '/params/username'],
      ['POST', '/v1/social/posts', { body: 'hello\u0000world' }, '/body/body'],
      ['POST', '/v1/social/posts', { body: 'half a pair \ud83d' }, '/body/body'],
      ['POST', '/v1/tasks', { description: 'summarise\u0000' }, '/body/description'],
      ['POST', '/v1/tasks', { description: 'summarise', input: { 'k\u0000': 1 } }, '/body/input/k\u0000'],
      ['POST', '/v1/tasks', { description: 'summarise', metadata: { a: ['\udc00'] } }, '/body/metadata/a/0'],
      ['POST', '/v1/users', { username: 'nul_user', displayName: 'N', bio: 'a\u0000b' }, '/body/bio'],
    ];
    for (const [method, url, body, path] of cases) {
      const error = expectError(await app.request({ method, url, token, ...(body !== undefined ? { body } : {}) }), 400, 'BAD_REQUEST');
      assert.equal(error.details?.[0]?.path, path, `${method} ${url}: ${error.message}`);
      assert.match(error.message, /U\+0000|surrogate/);
    }
    const posts = await app.database.db.selectFrom('posts').select('id').execute();
    assert.equal(posts.length, 0);
    const me = await app.request({ method: 'GET', url: '/v1/users/me', token });
    assert.equal(me.statusCode, 404, me.body);
    // A whole surrogate pair is one character, and fine.
    const emoji = await app.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: 'done \ud83d\ude00' } });
    assert.notEqual(emoji.statusCode, 400, emoji.body);
  });
});

describe('query lists a route declares', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp(
      {},
      {
        beforeReady: (server) => {
          server.get(
            '/lists',
            {
              config: { auth: 'none' },
              schema: {
                querystring: {
                  type: 'object',
                  properties: {
                    tag: { type: 'array', items: { type: 'string' } },
                    n: { type: 'array', items: { type: 'integer' } },
                    flag: { type: 'boolean' },
                  },
                },
              },
            },
            async (request) => request.query,
          );
        },
      },
    );
  });
  after(() => app.close());

  it('reads repeated keys as a list, one key as a list of one, and list items strictly', async () => {
    const get = async (query: string) => (await app.request({ method: 'GET', url: `/lists?${query}` })).json();
    assert.deepEqual(await get('tag=a&tag=b&n=1&n=20'), { tag: ['a', 'b'], n: [1, 20] });
    assert.deepEqual(await get('tag=a&n=3&flag=true'), { tag: ['a'], n: [3], flag: true });
    const bad = expectError(await app.request({ method: 'GET', url: '/lists?n=1&n=0x10' }), 400, 'BAD_REQUEST');
    assert.equal(bad.details?.[0]?.path, '/querystring/n/1');
    expectError(await app.request({ method: 'GET', url: '/lists?flag=1' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/lists?flag=true&flag=false' }), 400, 'BAD_REQUEST');
  });
});

describe('errors from the HTTP layer itself, through a real socket', () => {
  let app: TestApp;
  let port: number;
  before(async () => {
    app = await startTestApp({ BODY_LIMIT_BYTES: '2048' });
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.server.address();
    assert.ok(address && typeof address === 'object');
    port = address.port;
  });
  after(() => app.close());

  /** Writes raw bytes and reads the whole answer until the server closes or answers once. */
  function raw(bytes: string): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', () => {});
      socket.on('close', () => {
        const [head = '', ...rest] = received.split('\r\n\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
        if (status === 0) reject(new Error(`no HTTP answer: ${JSON.stringify(received.slice(0, 200))}`));
        else resolve({ status, headers: head, body: rest.join('\r\n\r\n') });
      });
      socket.write(bytes, () => socket.end());
    });
  }

  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  const expectShape = (answer: { status: number; body: string }, status: number, code: string) => {
    assert.equal(answer.status, status, answer.body);
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
    assert.equal(body.code, code);
    assert.equal(typeof body.message, 'string');
  };

  it('answers headers over the size limit with 431 in the JSON error shape', async () => {
    const answer = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer.headers, /content-type: application\/json/i);
    expectShape(answer, 431, 'HEADERS_TOO_LARGE');
  });

  it('answers a URL over the size limit with 431 and a path segment over its limit with 414, both JSON', async () => {
    expectShape(await raw(`GET /v1/agents?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, 'HEADERS_TOO_LARGE');
    expectShape(await send('GET', `/v1/agents/${'a'.repeat(500)}`, {}), 414, 'URI_TOO_LONG');
  });

  it('answers a body over the limit with 413 in the JSON error shape, by length and by chunks', async () => {
    const body = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(4000) });
    expectShape(
      await send('POST', '/v1/auth/signup', { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectShape(await send('POST', '/v1/auth/signup', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body), 413, 'PAYLOAD_TOO_LARGE');
  });

  /**
   * Sends a whole request, oversized body included, before reading anything: what a client does that
   * writes its body in one go. The answer must still be there to read once the body is sent.
   */
  function sendAllThenRead(head: string, body: Buffer): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('error', (error) => reject(new Error(`the connection failed before the answer was read: ${error.message}`)));
      socket.write(head);
      socket.write(body, () => {
        socket.end();
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => (received += chunk));
        socket.on('end', () => {
          const [headers = '', ...rest] = received.split('\r\n\r\n');
          resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
        });
      });
    });
  }

  it('answers an oversized body with its 413 even to a client that sends it all before reading (JSON and media uploads)', async () => {
    const { token } = await app.signup();
    const json = Buffer.from(JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }));
    const jsonAnswer = await sendAllThenRead(
      `POST /v1/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`,
      json,
    );
    expectShape(jsonAnswer, 413, 'PAYLOAD_TOO_LARGE');
    assert.match(jsonAnswer.headers, /content-type: application\/json/i);

    const image = Buffer.concat([pngFixture, Buffer.alloc(6 * 1024 * 1024)]);
    const mediaAnswer = await sendAllThenRead(
      `POST /v1/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: image/png\r\nContent-Length: ${image.length}\r\n\r\n`,
      image,
    );
    expectShape(mediaAnswer, 413, 'PAYLOAD_TOO_LARGE');
    assert.match(JSON.parse(mediaAnswer.body).message, /at most 5 MB/);
  });

  it('answers bytes that are not HTTP with 400 in the JSON error shape', async () => {
    expectShape(await raw('this is not http\r\n\r\n'), 400, 'BAD_REQUEST');
    expectShape(await raw('GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'), 400, 'BAD_REQUEST');
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
        expectError(
          await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: 'nobody@example.test', password: 'wrong password' } }),
          401,
          'UNAUTHORIZED',
        );
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
    const slow = await startTestApp(
      {},
      {
        beforeReady: (server) => {
          server.get('/slow', { config: { auth: 'none' } }, async () => {
            entered();
            await new Promise((resolve) => setTimeout(resolve, 300));
            return { done: true };
          });
        },
      },
    );
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
    const app = await startTestApp(
      { SHUTDOWN_GRACE_MS: '60000' },
      {
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
      },
    );
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
