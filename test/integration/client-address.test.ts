import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';

/** A request as a proxy at `peer` forwards it, with the X-Forwarded-For it sends. */
const forwarded = (app: TestApp, peer: string, forwardedFor: string) =>
  app.server.inject({ method: 'GET', url: '/v1/users/check?username=free_name', remoteAddress: peer, headers: { 'x-forwarded-for': forwardedFor } });

describe('client address behind proxies', () => {
  it('with one trusted hop, counts the address the proxy saw, however the client forges the entries left of it', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '3', TRUST_PROXY: '1' });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await forwarded(app, '10.0.0.5', `198.18.0.${i}, 203.0.113.7`)).statusCode, 200);
      expectError(await forwarded(app, '10.0.0.5', '198.18.0.99, 203.0.113.7'), 429, 'RATE_LIMITED');
      // Another client behind the same proxy has a budget of its own: the proxy's address is not the key.
      assert.equal((await forwarded(app, '10.0.0.5', '203.0.113.8')).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it('with two trusted hops, counts the entry the outer proxy appended', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '2', TRUST_PROXY: '2' });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await forwarded(app, '10.0.0.6', `198.18.1.${i}, 203.0.113.9, 10.0.0.4`)).statusCode, 200);
      expectError(await forwarded(app, '10.0.0.6', '198.18.1.50, 203.0.113.9, 10.0.0.4'), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });

  it('with a list of proxies, believes X-Forwarded-For only from a listed address or CIDR', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '3', TRUST_PROXY: '10.0.0.0/8,192.168.1.7' });
    try {
      // Listed proxies: each forwarded client is counted on its own.
      for (let i = 0; i < 5; i++) {
        assert.equal((await forwarded(app, '192.168.1.7', `203.0.113.${i}`)).statusCode, 200);
        assert.equal((await forwarded(app, '10.20.30.40', `203.0.113.${100 + i}`)).statusCode, 200);
      }
      // Not listed: its X-Forwarded-For is ignored, so rotating it gains nothing.
      for (let i = 0; i < 3; i++) assert.equal((await forwarded(app, '198.51.100.9', `203.0.113.${200 + i}`)).statusCode, 200);
      expectError(await forwarded(app, '198.51.100.9', '203.0.113.250'), 429, 'RATE_LIMITED');
      // Nor is a listed address believed when it only appears inside the header.
      for (let i = 0; i < 3; i++) assert.equal((await forwarded(app, '198.51.100.10', `203.0.114.${i}, 192.168.1.7`)).statusCode, 200);
      expectError(await forwarded(app, '198.51.100.10', '203.0.114.9, 192.168.1.7'), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });

  it('counts an IPv6 client by its /64, so rotating through its own addresses gains nothing', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '3' });
    const from = (remoteAddress: string) => app.server.inject({ method: 'GET', url: '/v1/users/check?username=free_name', remoteAddress });
    try {
      for (let i = 1; i <= 3; i++) assert.equal((await from(`2001:db8:7:8::${i.toString(16)}`)).statusCode, 200);
      expectError(await from('2001:db8:7:8:ffff:ffff:ffff:ffff'), 429, 'RATE_LIMITED');
      assert.equal((await from('2001:db8:7:9::1')).statusCode, 200, 'the next /64 is another client');
      // IPv4 written as IPv4-mapped IPv6 is the same client as plain IPv4.
      for (let i = 0; i < 3; i++) assert.equal((await from('203.0.113.77')).statusCode, 200);
      expectError(await from('::ffff:203.0.113.77'), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });

  it('ignores X-Forwarded-For when no proxy is trusted (the default)', async () => {
    const app = await startTestApp({ RATE_LIMIT_MAX: '2' });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await forwarded(app, '198.51.100.20', `203.0.115.${i}`)).statusCode, 200);
      expectError(await forwarded(app, '198.51.100.20', '203.0.115.9'), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });
});
