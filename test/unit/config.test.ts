import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('config', () => {
  it('has working defaults: SQLite under ./data on port 8080', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.databaseUrl, 'sqlite:./data/agentry.db');
    assert.equal(config.publicUrl, 'http://localhost:8080');
    assert.equal(config.oidcIssuer, null);
    assert.equal(config.shutdownGraceMs, 5000);
    assert.equal(config.allowUnsignedProvisionalPoll, false);
  });

  it('names every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', OIDC_ISSUER: 'not a url', REDIS_URL: 'http://x', LOG_LEVEL: 'loud', ALLOW_PRIVATE_ENDPOINTS: 'maybe', ALLOW_UNSIGNED_PROVISIONAL_POLL: 'yes', SHUTDOWN_GRACE_MS: '-1' });
      assert.fail('expected ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      for (const name of ['PORT', 'DATABASE_URL', 'OIDC_ISSUER', 'REDIS_URL', 'LOG_LEVEL', 'ALLOW_PRIVATE_ENDPOINTS', 'ALLOW_UNSIGNED_PROVISIONAL_POLL', 'SHUTDOWN_GRACE_MS']) {
        assert.ok(error.problems.some((p) => p.startsWith(name)), `${name} reported`);
      }
    }
  });

  it('needs OIDC issuer and audience together', () => {
    assert.throws(() => loadConfig({ OIDC_ISSUER: 'https://id.example.test' }), /OIDC_AUDIENCE is required/);
    assert.throws(() => loadConfig({ OIDC_AUDIENCE: 'agentry' }), /OIDC_ISSUER is required/);
    assert.equal(loadConfig({ OIDC_ISSUER: 'https://id.example.test/', OIDC_AUDIENCE: 'agentry' }).oidcIssuer, 'https://id.example.test');
  });

  it('stops the process with exit code 78 and a clear message on bad config', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: 'nope' }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(result.status, 78);
    assert.match(result.stderr, /PORT must be a whole number/);
  });
});
