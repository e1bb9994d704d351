import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';

describe('accounts and sessions', () => {
  let app: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({ SESSION_TTL_HOURS: '1' }, { clock });
  });
  after(() => app.close());

  it('signs up, returning a session token once and the account', async () => {
    const response = await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: 'Ada@Example.test', password: 'a long password' } });
    assert.equal(response.statusCode, 201);
    const { data } = response.json();
    assert.match(data.token, /^ags_[A-Za-z0-9_-]{43}$/);
    assert.equal(data.account.email, 'ada@example.test');
    assert.equal(data.account.kind, 'person');
    assert.ok(Date.parse(data.expiresAt) > clock.now().getTime());
    const account = await app.request({ method: 'GET', url: '/v1/auth/account', token: data.token });
    assert.equal(account.json().data.id, data.account.id);
  });

  it('stores neither the password nor the token in clear', async () => {
    const email = 'clear@example.test';
    const { token } = await app.signup(email);
    const account = await app.database.db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    assert.match(account.password_hash ?? '', /^scrypt\$/);
    assert.ok(!account.password_hash?.includes('correct horse'));
    const sessions = await app.database.db.selectFrom('sessions').select('token_hash').where('account_id', '=', account.id).execute();
    assert.equal(sessions.length, 1);
    assert.notEqual(sessions[0]!.token_hash, token);
  });

  it('refuses a second account with the same email in any case', async () => {
    await app.signup('twice@example.test');
    const again = await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: 'TWICE@example.test', password: 'another password' } });
    expectError(again, 409, 'CONFLICT');
    // Named by field, so a form shows it under the email.
    assert.deepEqual(again.json().details, [{ path: '/body/email', message: 'This email is already registered: log in instead' }]);
  });

  it('rejects bad sign-up input', async () => {
    const cases: unknown[] = [
      { email: 'not-an-email', password: 'long enough pw' },
      { email: 'a@b.co', password: 'short' },
      { email: 'a@b.co', password: 'x'.repeat(201) },
      { email: 'a@b.co', password: 'long enough pw', admin: true },
      { email: ['a@b.co'], password: 'long enough pw' },
      {},
    ];
    for (const body of cases) expectError(await app.request({ method: 'POST', url: '/v1/auth/signup', body }), 400, 'BAD_REQUEST');
  });

  it('logs in with the right password only', async () => {
    await app.signup('login@example.test');
    const ok = await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: 'LOGIN@example.test', password: 'correct horse battery' } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.json().data.token, /^ags_/);
    expectError(
      await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: 'login@example.test', password: 'wrong horse battery' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: 'nobody@example.test', password: 'correct horse battery' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('stops a logged-out session at once, leaving the other sessions alive', async () => {
    const { token, email } = await app.signup();
    const second = (await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: 'correct horse battery' } })).json().data.token;
    const out = await app.request({ method: 'POST', url: '/v1/auth/logout', token });
    assert.deepEqual(out.json(), { data: { loggedOut: true } });
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token }), 401, 'UNAUTHORIZED');
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: second })).statusCode, 200);
  });

  it('expires sessions after their lifetime', async () => {
    const { token } = await app.signup();
    clock.advance(59 * 60 * 1000);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).statusCode, 200);
    clock.advance(2 * 60 * 1000);
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token }), 401, 'UNAUTHORIZED');
  });

  it('answers 401 for missing, malformed and unknown credentials', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', headers: { authorization: 'Basic abc' } }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: 'ags_forged' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: 'agk_forged' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'POST', url: '/v1/auth/logout' }), 401, 'UNAUTHORIZED');
  });
});

describe('API keys', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const createKey = async (token: string, body: unknown = { name: 'ci' }) => app.request({ method: 'POST', url: '/v1/api-keys', token, body });

  it('shows the secret once, then lists only its prefix', async () => {
    const { token } = await app.signup();
    const created = await createKey(token, { name: 'laptop' });
    assert.equal(created.statusCode, 201);
    const key = created.json().data;
    assert.match(key.key, /^agk_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.prefix, key.key.slice(0, 12));
    assert.equal(key.agentId, null);
    const list = await app.request({ method: 'GET', url: '/v1/api-keys', token });
    assert.equal(list.statusCode, 200);
    const body = list.json();
    assert.equal(body.data.length, 1);
    assert.equal(body.data[0].prefix, key.prefix);
    assert.equal(body.data[0].key, undefined);
    assert.ok(!list.body.includes(key.key));
    assert.deepEqual(body.pagination, { limit: 20, offset: 0, total: 1, hasMore: false });
    const stored = await app.database.db.selectFrom('api_keys').select('key_hash').where('id', '=', key.id).executeTakeFirstOrThrow();
    assert.notEqual(stored.key_hash, key.key);
  });

  it('acts as the person who made it on either-mode routes, and records its use', async () => {
    const { token, accountId } = await app.signup();
    const key = (await createKey(token)).json().data;
    const account = await app.request({ method: 'GET', url: '/v1/auth/account', token: key.key });
    assert.equal(account.statusCode, 200);
    assert.equal(account.json().data.id, accountId);
    const listed = (await app.request({ method: 'GET', url: '/v1/api-keys', token })).json().data[0];
    assert.ok(listed.lastUsedAt);
  });

  it('is refused on session-only routes, so a leaked key cannot mint more keys', async () => {
    const { token } = await app.signup();
    const key = (await createKey(token)).json().data.key;
    expectError(await createKey(key), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/api-keys', token: key }), 401, 'UNAUTHORIZED');
  });

  it('stops working at once when revoked', async () => {
    const { token } = await app.signup();
    const key = (await createKey(token)).json().data;
    const revoked = await app.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, token });
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.json().data.revokedAt);
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: key.key }), 401, 'UNAUTHORIZED');
  });

  it("answers 404 for someone else's key and leaves it working", async () => {
    const alice = await app.signup();
    const bob = await app.signup();
    const aliceKey = (await createKey(alice.token)).json().data;
    expectError(await app.request({ method: 'DELETE', url: `/v1/api-keys/${aliceKey.id}`, token: bob.token }), 404, 'NOT_FOUND');
    assert.equal((await app.request({ method: 'GET', url: '/v1/api-keys', token: bob.token })).json().data.length, 0);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: aliceKey.key })).statusCode, 200);
    expectError(await app.request({ method: 'DELETE', url: '/v1/api-keys/00000000-0000-4000-8000-000000000000', token: bob.token }), 404, 'NOT_FOUND');
  });

  it('rejects bad input and unknown agents', async () => {
    const { token } = await app.signup();
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 5 }, { name: 'ok', scopes: ['all'] }]) {
      expectError(await createKey(token, body), 400, 'BAD_REQUEST');
    }
    expectError(await createKey(token, { name: 'bot', agentId: 'no-such-agent' }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/api-keys?limit=0', token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/api-keys?limit=abc', token }), 400, 'BAD_REQUEST');
  });

  it('paginates the list', async () => {
    const { token } = await app.signup();
    for (let i = 0; i < 3; i++) await createKey(token, { name: `k${i}` });
    const page = (await app.request({ method: 'GET', url: '/v1/api-keys?limit=2&offset=0', token })).json();
    assert.equal(page.data.length, 2);
    assert.deepEqual(page.pagination, { limit: 2, offset: 0, total: 3, hasMore: true });
    const rest = (await app.request({ method: 'GET', url: '/v1/api-keys?limit=2&offset=2', token })).json();
    assert.equal(rest.data.length, 1);
    assert.equal(rest.pagination.hasMore, false);
    const ids = new Set([...page.data, ...rest.data].map((k: { id: string }) => k.id));
    assert.equal(ids.size, 3);
  });
});
