import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';

interface ParsedCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

function setCookies(response: LightMyRequestResponse): Map<string, ParsedCookie> {
  const raw = response.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const cookies = new Map<string, ParsedCookie>();
  for (const line of lines) {
    const [pair, ...rest] = line.split(';').map((part) => part.trim());
    const eq = pair!.indexOf('=');
    const attributes = new Map<string, string>();
    for (const attribute of rest) {
      const [key, value = ''] = attribute.split('=');
      attributes.set(key!.toLowerCase(), value);
    }
    cookies.set(pair!.slice(0, eq), { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes });
  }
  return cookies;
}

async function browserLogin(app: TestApp, email: string) {
  const response = await app.request({ method: 'POST', url: '/v1/auth/browser/login', body: { email, password: 'correct horse battery' } });
  assert.equal(response.statusCode, 200);
  const cookies = setCookies(response);
  const session = cookies.get('agentry_session')!;
  const csrf = cookies.get('agentry_csrf')!;
  return {
    response,
    session,
    csrf,
    cookie: `agentry_session=${session.value}; agentry_csrf=${csrf.value}`,
    csrfToken: response.json().data.csrfToken as string,
  };
}

describe('browser sessions (cookie and CSRF token)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('signs up through the browser route with an HttpOnly, SameSite=Lax cookie and no token in the answer', async () => {
    const response = await app.request({
      method: 'POST',
      url: '/v1/auth/browser/signup',
      body: { email: 'web-signup@example.test', password: 'a long password' },
    });
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.equal(body.data.account.email, 'web-signup@example.test');
    assert.equal(body.data.token, undefined);
    assert.doesNotMatch(response.body, /ags_/);
    const session = setCookies(response).get('agentry_session')!;
    assert.match(session.value, /^ags_/);
    assert.ok(session.attributes.has('httponly'));
    assert.equal(session.attributes.get('samesite'), 'Lax');
    assert.equal(session.attributes.get('path'), '/');
    assert.ok(!session.attributes.has('secure'), 'no Secure flag on a plain-http public address');
    const csrf = setCookies(response).get('agentry_csrf')!;
    assert.equal(csrf.value, body.data.csrfToken);
    assert.ok(!csrf.attributes.has('httponly'), 'the page must be able to read the CSRF token');
  });

  it('logs in with the cookie, which is accepted as a session on a GET', async () => {
    const { accountId, email } = await app.signup();
    const { cookie } = await browserLogin(app, email);
    const account = await app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie } });
    assert.equal(account.statusCode, 200);
    assert.equal(account.json().data.id, accountId);
    // A session-only route takes it too.
    assert.equal((await app.request({ method: 'GET', url: '/v1/api-keys', headers: { cookie } })).statusCode, 200);
  });

  it('refuses a state-changing request made with the cookie but without a valid CSRF token', async () => {
    const { email } = await app.signup();
    const { cookie, csrfToken } = await browserLogin(app, email);
    const missing = expectError(await app.request({ method: 'POST', url: '/v1/api-keys', headers: { cookie }, body: { name: 'no token' } }), 403, 'FORBIDDEN');
    assert.match(missing.message, /X-CSRF-Token/);
    expectError(
      await app.request({
        method: 'POST',
        url: '/v1/api-keys',
        headers: { cookie, 'x-csrf-token': `${csrfToken.slice(0, -1)}${csrfToken.endsWith('A') ? 'B' : 'A'}` },
        body: { name: 'bad token' },
      }),
      403,
      'FORBIDDEN',
    );
    // Another session's token does not fit this one.
    const other = await browserLogin(app, email);
    expectError(
      await app.request({ method: 'POST', url: '/v1/api-keys', headers: { cookie, 'x-csrf-token': other.csrfToken }, body: { name: 'other session' } }),
      403,
      'FORBIDDEN',
    );
    const keys = await app.request({ method: 'GET', url: '/v1/api-keys', headers: { cookie } });
    assert.equal(keys.json().data.length, 0, 'nothing was created by the refused requests');
  });

  it('accepts a state-changing request with the CSRF token', async () => {
    const { email } = await app.signup();
    const { cookie, csrfToken } = await browserLogin(app, email);
    const created = await app.request({ method: 'POST', url: '/v1/api-keys', headers: { cookie, 'x-csrf-token': csrfToken }, body: { name: 'laptop' } });
    assert.equal(created.statusCode, 201);
    const revoked = await app.request({ method: 'DELETE', url: `/v1/api-keys/${created.json().data.id}`, headers: { cookie, 'x-csrf-token': csrfToken } });
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.json().data.revokedAt);
  });

  it('logs out: the session is revoked and the cookies cleared', async () => {
    const { email } = await app.signup();
    const { cookie, csrfToken } = await browserLogin(app, email);
    expectError(await app.request({ method: 'POST', url: '/v1/auth/logout', headers: { cookie } }), 403, 'FORBIDDEN');
    const logout = await app.request({ method: 'POST', url: '/v1/auth/logout', headers: { cookie, 'x-csrf-token': csrfToken } });
    assert.equal(logout.statusCode, 200);
    const cleared = setCookies(logout);
    assert.equal(cleared.get('agentry_session')?.value, '');
    assert.equal(cleared.get('agentry_csrf')?.value, '');
    assert.ok(Date.parse(cleared.get('agentry_session')!.attributes.get('expires')!) <= Date.now());
    // The old cookie, replayed, is no longer a session.
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie } }), 401, 'UNAUTHORIZED');
  });

  it('treats a stale cookie as signed out on public routes and refuses it on private ones', async () => {
    const cookie = 'agentry_session=ags_notasessionatall; agentry_csrf=x';
    const publicPage = await app.request({ method: 'GET', url: '/v1/discover?q=translate', headers: { cookie } });
    assert.equal(publicPage.statusCode, 200);
    assert.equal(setCookies(publicPage).get('agentry_session')?.value, '', 'the dead cookie is cleared');
    const privatePage = await app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie } });
    expectError(privatePage, 401, 'UNAUTHORIZED');
    assert.equal(setCookies(privatePage).get('agentry_csrf')?.value, '');
  });

  it('leaves bearer tokens and API keys unchanged: no CSRF token needed, even beside a cookie', async () => {
    const { token, email } = await app.signup();
    const created = await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'program' } });
    assert.equal(created.statusCode, 201);
    const key = created.json().data.key as string;
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: key })).statusCode, 200);
    // The bearer credential decides, not a cookie that happens to be there.
    const { cookie } = await browserLogin(app, email);
    const withBoth = await app.request({ method: 'POST', url: '/v1/api-keys', token, headers: { cookie }, body: { name: 'bearer wins' } });
    assert.equal(withBoth.statusCode, 201);
    const logout = await app.request({ method: 'POST', url: '/v1/auth/logout', token });
    assert.equal(logout.statusCode, 200);
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token }), 401, 'UNAUTHORIZED');
  });

  it('never takes an API key from the cookie', async () => {
    const { token } = await app.signup();
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'k' } })).json().data.key as string;
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie: `agentry_session=${key}` } }), 401, 'UNAUTHORIZED');
  });
});

describe('browser sessions behind an https public address', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ PUBLIC_URL: 'https://agentry.example' });
  });
  after(() => app.close());

  it('marks both cookies Secure', async () => {
    const response = await app.request({ method: 'POST', url: '/v1/auth/browser/signup', body: { email: 'secure@example.test', password: 'a long password' } });
    assert.equal(response.statusCode, 201);
    const cookies = setCookies(response);
    assert.ok(cookies.get('agentry_session')!.attributes.has('secure'));
    assert.ok(cookies.get('agentry_session')!.attributes.has('httponly'));
    assert.equal(cookies.get('agentry_session')!.attributes.get('samesite'), 'Lax');
    assert.ok(cookies.get('agentry_csrf')!.attributes.has('secure'));
  });
});
