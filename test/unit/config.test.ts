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
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        OIDC_ISSUER: 'not a url',
        REDIS_URL: 'http://x',
        LOG_LEVEL: 'loud',
        ALLOW_PRIVATE_ENDPOINTS: 'maybe',
        ALLOW_UNSIGNED_PROVISIONAL_POLL: 'yes',
        SHUTDOWN_GRACE_MS: '-1',
      });
      assert.fail('expected ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      for (const name of [
        'PORT',
        'DATABASE_URL',
        'OIDC_ISSUER',
        'REDIS_URL',
        'LOG_LEVEL',
        'ALLOW_PRIVATE_ENDPOINTS',
        'ALLOW_UNSIGNED_PROVISIONAL_POLL',
        'SHUTDOWN_GRACE_MS',
      ]) {
        assert.ok(
          error.problems.some((p) => p.startsWith(name)),
          `${name} reported`,
        );
      }
    }
  });

  it('needs OIDC issuer and audience together', () => {
    assert.throws(() => loadConfig({ OIDC_ISSUER: 'https://id.example.test' }), /OIDC_AUDIENCE is required/);
    assert.throws(() => loadConfig({ OIDC_AUDIENCE: 'agentry' }), /OIDC_ISSUER is required/);
    assert.equal(loadConfig({ OIDC_ISSUER: 'https://id.example.test/', OIDC_AUDIENCE: 'agentry' }).oidcIssuer, 'https://id.example.test');
  });

  it('takes the browser sign-in client with its issuer and the public address it returns to', () => {
    const issuer = { OIDC_ISSUER: 'https://id.example.test', OIDC_AUDIENCE: 'agentry' };
    assert.equal(loadConfig(issuer).oidcClient, null);
    assert.deepEqual(loadConfig({ ...issuer, OIDC_CLIENT_ID: 'agentry-web', PUBLIC_URL: 'https://agentry.example.test' }).oidcClient, {
      id: 'agentry-web',
      secret: null,
    });
    assert.deepEqual(
      loadConfig({ ...issuer, OIDC_CLIENT_ID: 'agentry-web', OIDC_CLIENT_SECRET: 's3cret', PUBLIC_URL: 'https://agentry.example.test' }).oidcClient,
      { id: 'agentry-web', secret: 's3cret' },
    );
    assert.throws(
      () => loadConfig({ OIDC_CLIENT_ID: 'agentry-web', PUBLIC_URL: 'https://agentry.example.test' }),
      /OIDC_ISSUER is required when OIDC_CLIENT_ID is set/,
    );
    assert.throws(() => loadConfig({ ...issuer, OIDC_CLIENT_ID: 'agentry-web' }), /PUBLIC_URL is required when OIDC_CLIENT_ID is set/);
    assert.throws(() => loadConfig({ ...issuer, OIDC_CLIENT_SECRET: 's3cret' }), /OIDC_CLIENT_ID is required when OIDC_CLIENT_SECRET is set/);
    assert.throws(() => loadConfig({ ...issuer, OIDC_CLIENT_ID: 'has space', PUBLIC_URL: 'https://agentry.example.test' }), /OIDC_CLIENT_ID must be/);
  });

  it('takes TRUST_PROXY as a hop count or a list of proxies, never as "trust every hop"', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '1' }).trustProxy, { hops: 1 });
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1,fd00::/8,loopback' }).trustProxy, {
      proxies: ['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8', 'loopback'],
    });
    assert.throws(
      () => loadConfig({ TRUST_PROXY: 'true' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /TRUST_PROXY=true would believe every X-Forwarded-For entry/);
        assert.match(error.message, /TRUST_PROXY=1\b/);
        assert.match(error.message, /TRUST_PROXY=10\.0\.0\.0\/8,192\.168\.1\.7/);
        return true;
      },
    );
    for (const bad of ['11', '10.1', '10.0.0.0/33', '10.0.0.0/', 'proxy.internal', '10.0.0.1,,10.0.0.2', 'yes']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY must be/, bad);
    }
  });

  it('turns tracing on only with an OTLP endpoint, reading the standard OpenTelemetry variables', () => {
    assert.equal(loadConfig({}).tracing, null, 'off by default');
    assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'agentry',
    });
    assert.deepEqual(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.test/api/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D%3D, x-team = ops',
        OTEL_SERVICE_NAME: 'agentry-eu',
      }).tracing,
      {
        endpoint: 'https://otlp.example.test/api/traces',
        protocol: 'http/json',
        headers: { 'x-api-key': 'abc==', 'x-team': 'ops' },
        serviceName: 'agentry-eu',
      },
    );
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing, null);
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing, null);
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json \(got "grpc"/,
    );
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL/);
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'no-value' }),
      /OTEL_EXPORTER_OTLP_HEADERS must be comma-separated name=value pairs/,
    );
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'zipkin' }),
      /OTEL_TRACES_EXPORTER must be otlp or none/,
    );
  });

  it('reads the credential limits, and refuses a login delay that starts above its cap', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.credentialRateLimit, { max: 20, windowMs: 60_000 });
    assert.deepEqual(defaults.loginThrottle, {
      freeFailures: 5,
      delayBaseMs: 1000,
      delayMaxMs: 900_000,
      failureWindowMs: 900_000,
      knownAddressMs: 30 * 86_400_000,
    });
    const set = loadConfig({
      CREDENTIAL_RATE_LIMIT_MAX: '5',
      CREDENTIAL_RATE_LIMIT_WINDOW_MS: '30000',
      LOGIN_FAILURES_PER_ACCOUNT: '0',
      LOGIN_KNOWN_ADDRESS_DAYS: '0',
    });
    assert.deepEqual(set.credentialRateLimit, { max: 5, windowMs: 30_000 });
    assert.equal(set.loginThrottle.freeFailures, 0);
    assert.equal(set.loginThrottle.knownAddressMs, 0);
    assert.throws(
      () => loadConfig({ LOGIN_DELAY_BASE_MS: '60000', LOGIN_DELAY_MAX_MS: '1000' }),
      /LOGIN_DELAY_BASE_MS \(60000\) must not exceed LOGIN_DELAY_MAX_MS/,
    );
    for (const name of [
      'CREDENTIAL_RATE_LIMIT_MAX',
      'CREDENTIAL_RATE_LIMIT_WINDOW_MS',
      'LOGIN_FAILURES_PER_ACCOUNT',
      'LOGIN_DELAY_BASE_MS',
      'LOGIN_DELAY_MAX_MS',
      'LOGIN_FAILURE_WINDOW_MS',
      'LOGIN_KNOWN_ADDRESS_DAYS',
    ]) {
      assert.throws(() => loadConfig({ [name]: '-3' }), new RegExp(`${name} must be a whole number`), name);
    }
  });

  it('stops the process with exit code 78 when TRUST_PROXY=true, saying what to write instead', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, TRUST_PROXY: 'true' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(result.status, 78);
    assert.match(result.stderr, /TRUST_PROXY=1/);
  });

  it('stops the process with exit code 78 and a clear message on bad config', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'nope' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(result.status, 78);
    assert.match(result.stderr, /PORT must be a whole number/);
  });
});
