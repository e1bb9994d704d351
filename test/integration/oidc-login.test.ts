import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';

const PUBLIC_URL = 'http://agentry.test';
const REDIRECT_URI = `${PUBLIC_URL}/v1/auth/oidc/callback`;

/** name -> the Set-Cookie line for it. */
function setCookies(response: LightMyRequestResponse): Map<string, string> {
  const raw = response.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line]));
}
const cookieValue = (line: string | undefined) => line?.slice(line.indexOf('=') + 1).split(';')[0];

/** The failure page the callback sent the browser to, as the login page reads it. */
function failure(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 302, response.body);
  const location = new URL(String(response.headers.location), PUBLIC_URL);
  assert.equal(location.pathname, '/login');
  // No session came of it.
  const cookies = setCookies(response);
  assert.ok(!cookieValue(cookies.get('agentry_session')), 'no session cookie');
  assert.ok(!cookieValue(cookies.get('agentry_csrf')), 'no CSRF cookie');
  return { error: location.searchParams.get('oidc_error'), detail: location.searchParams.get('oidc_detail'), next: location.searchParams.get('next') };
}

describe('browser sign-in through the OIDC issuer: authorization code with PKCE (real oidc-provider on loopback)', () => {
  let provider: TestOidcProvider;
  let app: TestApp;
  before(async () => {
    provider = await startOidcProvider({
      audience: 'agentry-test',
      webClient: { clientId: 'agentry-web', redirectUri: REDIRECT_URI, secret: 'a confidential client secret' },
    });
    app = await startTestApp({
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: 'agentry-test',
      OIDC_CLIENT_ID: 'agentry-web',
      OIDC_CLIENT_SECRET: 'a confidential client secret',
      PUBLIC_URL,
      // Sign-in routes have the credential budget; this file signs in more often than 20 times a minute.
      CREDENTIAL_RATE_LIMIT_MAX: '100',
    });
  });
  after(async () => {
    await app.close();
    await provider.close();
  });

  /** The start of a sign-in: where the browser is sent, and the transaction cookie it carries back. */
  async function start(next = '/settings') {
    const response = await app.request({ method: 'GET', url: `/v1/auth/oidc/start?next=${encodeURIComponent(next)}` });
    assert.equal(response.statusCode, 302, response.body);
    const transaction = setCookies(response).get('agentry_oidc')!;
    assert.ok(transaction, 'a transaction cookie');
    return { location: String(response.headers.location), transaction, cookie: `agentry_oidc=${cookieValue(transaction)}` };
  }

  /** The provider's answer (a URL at our callback) delivered as the browser would, with the cookie. */
  const callback = (returned: string, cookie: string | null) => {
    const url = new URL(returned);
    assert.equal(`${url.origin}${url.pathname}`, REDIRECT_URI);
    return app.request({ method: 'GET', url: `${url.pathname}${url.search}`, headers: cookie ? { cookie } : {} });
  };

  it('says how to sign in: a button named after the issuer', async () => {
    const options = await app.request({ method: 'GET', url: '/v1/auth/sign-in-options' });
    assert.equal(options.statusCode, 200);
    assert.deepEqual(options.json().data, { oidc: { issuer: provider.issuer, name: new URL(provider.issuer).host, startPath: '/v1/auth/oidc/start' } });
  });

  it('signs a person in: PKCE S256, state and nonce sent; the session is the built-in cookie pair; the same subject is the same account', async () => {
    const started = await start('/settings/keys?tab=1');
    const authorize = new URL(started.location);
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${provider.issuer}/auth`);
    const params = authorize.searchParams;
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), 'agentry-web');
    assert.equal(params.get('redirect_uri'), REDIRECT_URI);
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.match(params.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(params.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(params.get('nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(params.get('scope') ?? '', /\bopenid\b/);
    // The transaction is the browser's alone: HttpOnly, only sent to the callback, short-lived.
    assert.match(started.transaction, /HttpOnly/i);
    assert.match(started.transaction, /Path=\/v1\/auth\/oidc\/callback/);
    assert.match(started.transaction, /SameSite=Lax/i);
    assert.match(started.transaction, /Max-Age=600/);
    // Neither the PKCE verifier nor anything else secret is in the address the browser is sent to.
    const verifier = JSON.parse(Buffer.from(cookieValue(started.transaction)!, 'base64url').toString()).verifier as string;
    assert.ok(!started.location.includes(verifier));

    const returned = await provider.signIn(started.location, 'alice');
    const response = await callback(returned, started.cookie);
    assert.equal(response.statusCode, 302, response.body);
    assert.equal(response.headers.location, '/settings/keys?tab=1');
    const cookies = setCookies(response);
    assert.match(cookies.get('agentry_session') ?? '', /HttpOnly/i);
    assert.match(cookies.get('agentry_csrf') ?? '', /SameSite=Lax/i);
    assert.match(cookies.get('agentry_oidc') ?? '', /Expires=Thu, 01 Jan 1970/, 'the transaction cookie is cleared');
    const session = cookieValue(cookies.get('agentry_session'))!;
    assert.match(session, /^ags_/);

    const account = await app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie: `agentry_session=${session}` } });
    assert.equal(account.statusCode, 200, account.body);
    assert.equal(account.json().data.kind, 'person');
    // A cookie session changes things with its CSRF token, as a built-in login's does.
    const csrf = cookieValue(cookies.get('agentry_csrf'))!;
    const profile = await app.request({
      method: 'POST',
      url: '/v1/users',
      headers: { cookie: `agentry_session=${session}`, 'x-csrf-token': csrf },
      body: { username: 'alice_oidc', displayName: 'Alice' },
    });
    assert.equal(profile.statusCode, 201, profile.body);

    const again = await start();
    const second = await callback(await provider.signIn(again.location, 'alice'), again.cookie);
    const secondSession = cookieValue(setCookies(second).get('agentry_session'))!;
    const sameAccount = await app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie: `agentry_session=${secondSession}` } });
    assert.equal(sameAccount.json().data.id, account.json().data.id);

    const other = await start();
    const third = await callback(await provider.signIn(other.location, 'bob'), other.cookie);
    const otherAccount = await app.request({
      method: 'GET',
      url: '/v1/auth/account',
      headers: { cookie: `agentry_session=${cookieValue(setCookies(third).get('agentry_session'))}` },
    });
    assert.notEqual(otherAccount.json().data.id, account.json().data.id);
  });

  it('refuses an answer whose state is not the one this browser sent', async () => {
    const started = await start('/capabilities');
    const returned = new URL(await provider.signIn(started.location, 'mallory'));
    returned.searchParams.set('state', 'x'.repeat(43));
    assert.deepEqual(failure(await callback(returned.href, started.cookie)), { error: 'state', detail: null, next: '/capabilities' });
    // Another browser's answer (no transaction cookie at all) is refused too, and says to start again.
    const elsewhere = await start();
    assert.equal(failure(await callback(await provider.signIn(elsewhere.location, 'mallory'), null)).error, 'expired');
  });

  it('refuses a code presented twice', async () => {
    const started = await start();
    const returned = await provider.signIn(started.location, 'carol');
    assert.equal((await callback(returned, started.cookie)).statusCode, 302);
    assert.deepEqual(failure(await callback(returned, started.cookie)), { error: 'exchange', detail: 'invalid_grant', next: '/settings' });
  });

  it('refuses an ID token that does not carry this sign-in’s nonce', async () => {
    const started = await start();
    const transaction = JSON.parse(Buffer.from(cookieValue(started.transaction)!, 'base64url').toString());
    const swapped = Buffer.from(JSON.stringify({ ...transaction, nonce: 'n'.repeat(43) })).toString('base64url');
    const returned = await provider.signIn(started.location, 'dave');
    assert.equal(failure(await callback(returned, `agentry_oidc=${swapped}`)).error, 'token');
  });

  it('shows the provider’s error answer (the person cancelled at the provider)', async () => {
    const started = await start('/capabilities');
    const returned = await provider.signIn(started.location, '', { cancel: true });
    assert.equal(new URL(returned).searchParams.get('error'), 'access_denied');
    assert.deepEqual(failure(await callback(returned, started.cookie)), { error: 'provider', detail: 'access_denied', next: '/capabilities' });
  });

  it('refuses an answer that names another issuer (RFC 9207 mix-up)', async () => {
    const started = await start();
    const returned = new URL(await provider.signIn(started.location, 'erin'));
    returned.searchParams.set('iss', 'https://elsewhere.example');
    assert.equal(failure(await callback(returned.href, started.cookie)).error, 'issuer');
  });

  it('returns only to paths of this app', async () => {
    for (const next of ['//evil.example/phish', 'https://evil.example/', '/\\evil.example', '/./', '/.//evil.example', '/a/..//evil.example']) {
      const started = await start(next);
      const response = await callback(await provider.signIn(started.location, 'frank'), started.cookie);
      assert.equal(response.headers.location, '/', next);
    }
  });

  it('percent-encodes a path with characters a Location header cannot carry, never a 500', async () => {
    for (const [next, location] of [
      ['/\u3002/evil.example', '/%E3%80%82/evil.example'],
      ['/\u2215\u2215evil.example', '/%E2%88%95%E2%88%95evil.example'],
      ['/agents?q=caf\u00e9#top', '/agents?q=caf%C3%A9#top'],
    ]) {
      const started = await start(next!);
      const response = await callback(await provider.signIn(started.location, 'grace'), started.cookie);
      assert.equal(response.statusCode, 302, `${next}: ${response.body}`);
      assert.equal(response.headers.location, location, next);
    }
  });

  it('answers bad input with a clear JSON 400', async () => {
    expectError(await app.request({ method: 'GET', url: `/v1/auth/oidc/start?next=/${'a'.repeat(2100)}` }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/auth/oidc/callback?state=a&state=b' }), 400, 'BAD_REQUEST');
    // A garbage transaction cookie is a sign-in to start again, not an error of the service.
    assert.equal(
      failure(await app.request({ method: 'GET', url: '/v1/auth/oidc/callback?code=x&state=y', headers: { cookie: 'agentry_oidc=%%%garbage' } })).error,
      'expired',
    );
  });
});

describe('browser sign-in with a public client (PKCE, no secret)', () => {
  it('signs in without a client secret', async () => {
    const provider = await startOidcProvider({ audience: 'agentry-test', webClient: { clientId: 'agentry-public', redirectUri: REDIRECT_URI } });
    const app = await startTestApp({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: 'agentry-test', OIDC_CLIENT_ID: 'agentry-public', PUBLIC_URL });
    try {
      const started = await app.request({ method: 'GET', url: '/v1/auth/oidc/start' });
      const cookie = `agentry_oidc=${cookieValue(setCookies(started).get('agentry_oidc'))}`;
      const returned = new URL(await provider.signIn(String(started.headers.location), 'grace'));
      const response = await app.request({ method: 'GET', url: `${returned.pathname}${returned.search}`, headers: { cookie } });
      assert.equal(response.headers.location, '/');
      assert.match(cookieValue(setCookies(response).get('agentry_session')) ?? '', /^ags_/);
    } finally {
      await app.close();
      await provider.close();
    }
  });
});

describe('browser sign-in while the issuer is unreachable', () => {
  it('sends the browser back to the login page saying so, with no transaction started', async () => {
    // Nothing listens on port 1: discovery fails at once.
    const app = await startTestApp({ OIDC_ISSUER: 'http://127.0.0.1:1', OIDC_AUDIENCE: 'agentry-test', OIDC_CLIENT_ID: 'agentry-web', PUBLIC_URL });
    try {
      const response = await app.request({ method: 'GET', url: '/v1/auth/oidc/start?next=%2Fcapabilities' });
      assert.equal(response.statusCode, 302);
      assert.equal(response.headers.location, '/login?next=%2Fcapabilities&oidc_error=unavailable');
      assert.equal(setCookies(response).get('agentry_oidc'), undefined);
    } finally {
      await app.close();
    }
  });
});

describe('browser sign-in not configured', () => {
  it('offers no OIDC button and answers the flow’s routes with 404', async () => {
    const app = await startTestApp();
    try {
      assert.deepEqual((await app.request({ method: 'GET', url: '/v1/auth/sign-in-options' })).json().data, { oidc: null });
      expectError(await app.request({ method: 'GET', url: '/v1/auth/oidc/start' }), 404, 'NOT_FOUND');
      expectError(await app.request({ method: 'GET', url: '/v1/auth/oidc/callback?code=x&state=y' }), 404, 'NOT_FOUND');
    } finally {
      await app.close();
    }
  });
});
