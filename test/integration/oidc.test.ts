import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';

describe('external OIDC sessions (real oidc-provider on loopback)', () => {
  let provider: TestOidcProvider;
  let app: TestApp;
  before(async () => {
    provider = await startOidcProvider({ audience: 'agentry-test' });
    app = await startTestApp({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: 'agentry-test' });
  });
  after(async () => {
    await app.close();
    await provider.close();
  });

  it('accepts a token from the issuer as a session, keyed by (issuer, subject)', async () => {
    const token = await provider.issueToken('user-123', { email: 'oidc@example.test' });
    const first = await app.request({ method: 'GET', url: '/v1/auth/account', token });
    assert.equal(first.statusCode, 200, first.body);
    const account = first.json().data;
    assert.equal(account.kind, 'person');
    const again = await app.request({ method: 'GET', url: '/v1/auth/account', token: await provider.issueToken('user-123') });
    assert.equal(again.json().data.id, account.id);
    const other = await app.request({ method: 'GET', url: '/v1/auth/account', token: await provider.issueToken('user-456') });
    assert.notEqual(other.json().data.id, account.id);
  });

  it('lets an OIDC person create a profile and API keys (session routes)', async () => {
    const token = await provider.issueToken('user-profile');
    const created = await app.request({ method: 'POST', url: '/v1/users', token, body: { username: 'oidc_person', displayName: 'O' } });
    assert.equal(created.statusCode, 201, created.body);
    const key = await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'from oidc' } });
    assert.equal(key.statusCode, 201);
    const me = await app.request({ method: 'GET', url: '/v1/users/me', token: key.json().data.key });
    assert.equal(me.json().data.username, 'oidc_person');
  });

  it('rejects expired tokens, other audiences and tampered tokens with 401', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: await provider.issueExpiredToken('user-123') }), 401, 'UNAUTHORIZED');
    expectError(
      await app.request({ method: 'GET', url: '/v1/auth/account', token: await provider.issueToken('user-123', { audience: 'someone-else' }) }),
      401,
      'UNAUTHORIZED',
    );
    const token = await provider.issueToken('user-123');
    const [header, payload, signature] = token.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'admin' })).toString('base64url');
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: `${header}.${forgedPayload}.${signature}` }), 401, 'UNAUTHORIZED');
  });

  it('cannot log out an OIDC token here (it ends at the provider)', async () => {
    expectError(await app.request({ method: 'POST', url: '/v1/auth/logout', token: await provider.issueToken('user-789') }), 400, 'BAD_REQUEST');
  });
});

describe('OIDC not configured', () => {
  it('treats a JWT as an invalid credential', async () => {
    const provider = await startOidcProvider({ audience: 'agentry-test' });
    const app = await startTestApp();
    try {
      expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: await provider.issueToken('x') }), 401, 'UNAUTHORIZED');
    } finally {
      await app.close();
      await provider.close();
    }
  });
});
