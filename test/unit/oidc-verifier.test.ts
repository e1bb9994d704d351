import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { SignJWT, UnsecuredJWT } from 'jose';

import { createOidcVerifier } from '../../src/modules/auth/oidc.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import type { TestOidcProvider } from '../helpers/oidc-provider.ts';

const AUDIENCE = 'https://api.agentry.test';

/** A genuine token whose issuer has stopped listening: start a provider, take a token, stop it. */
async function tokenFromStoppedIssuer(subject = 'alice'): Promise<{ issuer: string; port: number; token: string }> {
  const provider = await startOidcProvider({ audience: AUDIENCE });
  const token = await provider.issueToken(subject);
  await provider.close();
  return { issuer: provider.issuer, port: Number(new URL(provider.issuer).port), token };
}

async function listen(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Flip one character of a base64url segment so it still decodes but no longer matches. */
function flip(segment: string, at = 5): string {
  const c = segment[at];
  return segment.slice(0, at) + (c === 'A' ? 'B' : 'A') + segment.slice(at + 1);
}

describe('OIDC verifier against a real oidc-provider', () => {
  let idp: TestOidcProvider;
  let otherIdp: TestOidcProvider;

  before(async () => {
    [idp, otherIdp] = await Promise.all([startOidcProvider({ audience: AUDIENCE }), startOidcProvider({ audience: AUDIENCE })]);
  });
  after(async () => {
    await Promise.all([idp?.close(), otherIdp?.close()]);
  });

  it('accepts a genuine access token: issuer, subject and email come from it', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const token = await idp.issueToken('alice', { email: 'alice@example.com' });
    assert.equal(verifier.looksLikeJwt(token), true);
    assert.deepEqual(await verifier.verify(token), { issuer: idp.issuer, subject: 'alice', email: 'alice@example.com' });

    // Another subject through the same (now discovered, key-cached) verifier; no email claim.
    assert.deepEqual(await verifier.verify(await idp.issueToken('bob')), { issuer: idp.issuer, subject: 'bob', email: null });
  });

  it('accepts the issuer configured with a trailing slash', async () => {
    const verifier = createOidcVerifier({ issuer: `${idp.issuer}/`, audience: AUDIENCE });
    const identity = await verifier.verify(await idp.issueToken('alice'));
    assert.equal(identity?.issuer, idp.issuer);
  });

  it('drops an email the provider marks as unverified', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const unverified = await idp.issueToken('carol', { email: 'carol@example.com', emailVerified: false });
    assert.deepEqual(await verifier.verify(unverified), { issuer: idp.issuer, subject: 'carol', email: null });
    const verified = await idp.issueToken('carol', { email: 'carol@example.com', emailVerified: true });
    assert.equal((await verifier.verify(verified))?.email, 'carol@example.com');
  });

  it('accepts ES256 and EdDSA signed tokens', async () => {
    for (const signingAlg of ['ES256', 'EdDSA'] as const) {
      const provider = await startOidcProvider({ audience: AUDIENCE, signingAlg });
      try {
        const verifier = createOidcVerifier({ issuer: provider.issuer, audience: AUDIENCE });
        const token = await provider.issueToken('dave');
        assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, signingAlg);
        assert.equal((await verifier.verify(token))?.subject, 'dave', signingAlg);
      } finally {
        await provider.close();
      }
    }
  });

  it('rejects a token for another audience', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    assert.equal(await verifier.verify(await idp.issueToken('alice', { audience: 'https://other.example' })), null);
    assert.equal(await verifier.verify(await idp.issueToken('alice', { audience: 'agentry' })), null);
  });

  it('rejects a token from another provider (other keys, other issuer)', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const foreign = await otherIdp.issueToken('alice', { email: 'alice@example.com' });
    assert.equal(await verifier.verify(foreign), null);
    // and the other provider's verifier still takes it, so the token itself was fine
    const otherVerifier = createOidcVerifier({ issuer: otherIdp.issuer, audience: AUDIENCE });
    assert.equal((await otherVerifier.verify(foreign))?.issuer, otherIdp.issuer);
  });

  it('rejects a tampered token', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const token = await idp.issueToken('alice');
    const [header, payload, signature] = token.split('.') as [string, string, string];

    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url');
    assert.equal(await verifier.verify(`${header}.${forgedPayload}.${signature}`), null);
    assert.equal(await verifier.verify(`${header}.${payload}.${flip(signature)}`), null);
    assert.equal(await verifier.verify(`${header}.${payload}.`), null);
    // the untouched token still verifies
    assert.equal((await verifier.verify(token))?.subject, 'alice');
  });

  it('rejects unsigned and symmetric-key tokens carrying the right claims', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const claims = { sub: 'mallory', iss: idp.issuer, aud: AUDIENCE };
    const unsecured = new UnsecuredJWT(claims).setIssuedAt().setExpirationTime('5m').encode();
    assert.equal(await verifier.verify(unsecured), null);
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-shared-secret-that-nobody-should-accept'));
    assert.equal(await verifier.verify(hs256), null);
  });

  it('rejects garbage without throwing', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const samples = ['', 'garbage', 'a.b.c', 'a.b', '....', 'eyJhbGciOiJSUzI1NiJ9.e30', 'agt_' + 'x'.repeat(43), '💥.💥.💥', 'x'.repeat(20_000)];
    for (const sample of samples) {
      assert.equal(verifier.looksLikeJwt(sample), false, sample.slice(0, 40));
      assert.equal(await verifier.verify(sample), null, sample.slice(0, 40));
    }
    // well-formed header, nonsense payload
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'nope' })).toString('base64url');
    assert.equal(await verifier.verify(`${header}.bm90LWpzb24.c2ln`), null);
  });

  it('rejects an expired token (beyond the clock tolerance)', async () => {
    const verifier = createOidcVerifier({ issuer: idp.issuer, audience: AUDIENCE });
    const expired = await idp.issueExpiredToken('alice', { expiredForSeconds: 120 });
    assert.equal(await verifier.verify(expired), null);
  });

  it('honours the provider-issued lifetime against the verifier clock', async () => {
    const token = await idp.issueToken('alice', { ttlSeconds: 60 });
    const at = (offsetSeconds: number) =>
      createOidcVerifier({
        issuer: idp.issuer,
        audience: AUDIENCE,
        clock: { now: () => new Date(Date.now() + offsetSeconds * 1000) },
      });
    assert.equal((await at(0).verify(token))?.subject, 'alice');
    assert.equal((await at(60 + 20).verify(token))?.subject, 'alice', 'within the 30 s tolerance');
    assert.equal(await at(60 + 40).verify(token), null, 'past the tolerance');
  });

  it('never contacts the issuer for a token that names another issuer', async () => {
    const issuerErrors: unknown[] = [];
    const { issuer } = await tokenFromStoppedIssuer();
    const verifier = createOidcVerifier({ issuer, audience: AUDIENCE, onIssuerError: (error) => issuerErrors.push(error) });
    assert.equal(await verifier.verify(await idp.issueToken('alice')), null);
    assert.deepEqual(issuerErrors, []);
  });

  it('answers null quickly when the issuer port is closed, and reports it', async () => {
    const issuerErrors: unknown[] = [];
    const { issuer, token } = await tokenFromStoppedIssuer();
    const verifier = createOidcVerifier({
      issuer,
      audience: AUDIENCE,
      // A refused connection must not wait for the timeout: a long one tells the two apart on a slow machine.
      fetchTimeoutMs: 10_000,
      onIssuerError: (error) => issuerErrors.push(error),
    });
    const started = performance.now();
    assert.equal(await verifier.verify(token), null);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 5000, `took ${elapsed} ms`);
    assert.equal(issuerErrors.length, 1);
  });

  it('answers null within the timeout when the issuer accepts connections but never answers', async () => {
    const { port, token } = await tokenFromStoppedIssuer();
    const sockets = new Set<Socket>();
    const blackHole = createServer(() => {
      // never respond
    });
    blackHole.on('connection', (socket) => sockets.add(socket));
    const issuer = await listen(blackHole, port);
    try {
      const verifier = createOidcVerifier({ issuer, audience: AUDIENCE, fetchTimeoutMs: 1000 });
      const started = performance.now();
      assert.equal(await verifier.verify(token), null);
      const elapsed = performance.now() - started;
      // Ended by the 1 s timeout and not before it, with seconds of margin for a loaded machine.
      assert.ok(elapsed >= 950 && elapsed < 5000, `took ${elapsed} ms`);
      assert.ok(sockets.size >= 1, 'the verifier did reach the silent issuer');
    } finally {
      for (const socket of sockets) socket.destroy();
      await stop(blackHole);
    }
  });

  it('rejects a discovery document that names another issuer', async () => {
    const issuerErrors: unknown[] = [];
    const { port, token } = await tokenFromStoppedIssuer();
    // It points at idp's real keys but names idp as issuer: a verifier for this URL must not use it.
    const impostor = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks` }));
    });
    const issuer = await listen(impostor, port);
    try {
      const verifier = createOidcVerifier({ issuer, audience: AUDIENCE, onIssuerError: (error) => issuerErrors.push(error) });
      assert.equal(await verifier.verify(token), null);
      assert.equal(issuerErrors.length, 1);
      assert.match(String(issuerErrors[0]), /names issuer/);
    } finally {
      await stop(impostor);
    }
  });

  it('does not remember a failed discovery: the issuer coming back works', async () => {
    const { issuer, port, token: oldToken } = await tokenFromStoppedIssuer();
    const verifier = createOidcVerifier({ issuer, audience: AUDIENCE, discoveryRetryMs: 0 });
    assert.equal(await verifier.verify(oldToken), null, 'nobody listening');

    const provider = await startOidcProvider({ audience: AUDIENCE, port });
    try {
      assert.equal(provider.issuer, issuer);
      assert.deepEqual(await verifier.verify(await provider.issueToken('alice')), { issuer, subject: 'alice', email: null });
      // the stopped instance's token: same issuer URL, keys nobody serves any more
      assert.equal(await verifier.verify(oldToken), null);
    } finally {
      await provider.close();
    }
  });

  it('waits out discoveryRetryMs after a failure before asking the issuer again', async () => {
    const { port, issuer, token } = await tokenFromStoppedIssuer();
    const verifier = createOidcVerifier({ issuer, audience: AUDIENCE, discoveryRetryMs: 60_000 });
    assert.equal(await verifier.verify(token), null);
    const provider = await startOidcProvider({ audience: AUDIENCE, port });
    try {
      // Within the back-off window the verifier does not try again.
      assert.equal(await verifier.verify(await provider.issueToken('alice')), null);
      assert.equal(provider.requestCount('/.well-known/openid-configuration'), 0);
    } finally {
      await provider.close();
    }
  });

  it('discovers and fetches keys once for concurrent first calls, then serves from cache', async () => {
    const provider = await startOidcProvider({ audience: AUDIENCE });
    try {
      const verifier = createOidcVerifier({ issuer: provider.issuer, audience: AUDIENCE, discoveryRetryMs: 0 });
      const tokens = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((subject) => provider.issueToken(subject)));
      const results = await Promise.all([...tokens, ...tokens].map((token) => verifier.verify(token)));
      assert.deepEqual(
        results.map((r) => r?.subject),
        ['a', 'b', 'c', 'd', 'e', 'a', 'b', 'c', 'd', 'e'],
      );
      assert.equal(await verifier.verify(tokens[0]!).then((r) => r?.subject), 'a');
      assert.equal(provider.requestCount('/.well-known/openid-configuration'), 1);
      assert.equal(provider.requestCount('/jwks'), 1);
    } finally {
      await provider.close();
    }
  });
});
