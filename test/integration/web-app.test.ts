import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPost, socialUser } from '../helpers/social.ts';

const indexHtml = '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';

describe('serving the web app', () => {
  let app: TestApp;
  let root: string;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'agentry-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), indexHtml);
    writeFileSync(join(root, 'assets', 'index-Ab12Cd34.js'), 'console.log("app")');
    app = await startTestApp({ RATE_LIMIT_MAX: '3' }, { webRoot: root });
  });
  after(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html, never cached, at / and at every page of the app', async () => {
    for (const url of [
      '/',
      '/agents',
      '/agents/translator-bot',
      '/agents?q=translate&category=language',
      '/login?next=%2Fsettings',
      '/settings/keys',
      '/notifications',
      '/search?q=agents&tab=people',
      '/topics',
      '/topics/ai',
      '/receipts?pubkey=ed25519:abc',
      '/me/agents/123/trust',
      '/me',
    ]) {
      const response = await app.request({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, indexHtml, url);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers['cache-control'], 'no-cache');
      const policy = String(response.headers['content-security-policy']);
      assert.match(policy, /script-src 'self'(;|$)/, 'no inline or foreign script');
      assert.match(policy, /frame-ancestors 'none'/);
    }
  });

  it('answers unknown pages, posts and users with the app and HTTP 404, existing ones with 200', async () => {
    const ada = await socialUser(app, 'ada_pages');
    const post = await createPost(app, ada.token, 'A post to link to');
    const status = async (url: string) => {
      const response = await app.request({ method: 'GET', url });
      if (response.statusCode === 404 || response.statusCode === 200) assert.equal(response.body, indexHtml, url);
      return response.statusCode;
    };
    assert.equal(await status(`/posts/${post.id}`), 200);
    assert.equal(await status('/@ada_pages'), 200);
    assert.equal(await status('/@ADA_Pages'), 200);
    for (const url of [
      '/no-such-page',
      '/agents/x/y/z',
      '/posts/not-an-id',
      '/posts/7d1b0c1e-3c2a-4f7e-9a3b-1c2d3e4f5a6b',
      '/@nobody_by_this_name',
      '/me/nothing',
    ]) {
      assert.equal(await status(url), 404, url);
    }
  });

  it('serves hashed assets with a year-long immutable cache and no rate limit', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await app.request({ method: 'GET', url: '/assets/index-Ab12Cd34.js' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, 'console.log("app")');
      assert.match(String(response.headers['content-type']), /javascript/);
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
  });

  it('keeps JSON 404s for the API, its docs, health, media, missing assets and files', async () => {
    for (const url of [
      '/v1/nothing-here',
      '/v1',
      '/docs/nothing',
      '/openapi.json/x',
      '/health/x',
      '/media/123',
      '/assets/missing-123.js',
      '/assets/../index.html',
      '/favicon.ico',
      '/v0.1/nothing',
      '/ard/nothing',
      '/.tlog/nothing',
      '/.well-known/nothing',
      '/mcp/nothing',
      '/metrics/nothing',
    ]) {
      const response = await app.request({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().code, 'NOT_FOUND', url);
    }
    expectError(await app.request({ method: 'POST', url: '/agents' }), 404, 'NOT_FOUND');
  });

  it('still answers the API, /health and /openapi.json themselves', async () => {
    assert.equal((await app.request({ method: 'GET', url: '/health' })).statusCode, 200);
    assert.equal((await app.request({ method: 'GET', url: '/openapi.json' })).json().openapi, '3.1.0');
  });
});

describe('a service whose web app is not built', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({}, { webRoot: join(tmpdir(), 'agentry-web-never-built') });
  });
  after(() => app.close());

  it('answers pages with the JSON 404', async () => {
    expectError(await app.request({ method: 'GET', url: '/agents' }), 404, 'NOT_FOUND');
  });
});
