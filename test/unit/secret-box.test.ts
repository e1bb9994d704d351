import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createSecretBox, keyFromFile, parseSecretsKey } from '../../src/lib/secret-box.ts';

describe('secret box (stored agent credentials)', () => {
  const box = createSecretBox(Buffer.alloc(32, 7));

  test('opens what it sealed for the same owner, and only that', () => {
    const sealed = box.seal('s3cret', 'agent-1');
    assert.doesNotMatch(sealed, /s3cret/);
    assert.notEqual(box.seal('s3cret', 'agent-1'), sealed, 'a fresh IV each time');
    assert.equal(box.open(sealed, 'agent-1'), 's3cret');
    assert.throws(() => box.open(sealed, 'agent-2'));
    assert.throws(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed, 'agent-1'));
    const [version, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0]! ^= 1;
    assert.throws(() => box.open([version, iv, tag, flipped.toString('base64url')].join('.'), 'agent-1'));
    assert.throws(() => box.open('plain text', 'agent-1'));
  });

  test('keys are 32 bytes as hex or base64', () => {
    assert.equal(parseSecretsKey('ab'.repeat(32))?.length, 32);
    assert.equal(parseSecretsKey(Buffer.alloc(32, 1).toString('base64'))?.length, 32);
    assert.equal(parseSecretsKey(Buffer.alloc(32, 1).toString('base64url'))?.length, 32);
    assert.equal(parseSecretsKey('too short'), null);
    assert.equal(parseSecretsKey(Buffer.alloc(16).toString('base64')), null);
  });

  test('a missing key file is created with mode 0600 and read back on the next start', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentry-secrets-')), 'data', 'secrets.key');
    const first = keyFromFile(path);
    assert.equal(first.created, true);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const again = keyFromFile(path);
    assert.equal(again.created, false);
    assert.deepEqual(again.key, first.key);
    writeFileSync(path, 'not a key');
    assert.throws(() => keyFromFile(path), /does not hold a 32-byte key/);
    assert.equal(readFileSync(path, 'utf8'), 'not a key', 'a bad file is reported, never replaced');
  });

  test('PostgreSQL needs SECRETS_KEY; a malformed one is refused on any database', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    assert.ok(problems({ DATABASE_URL: 'postgres://db/agentry' }).some((problem) => problem.startsWith('SECRETS_KEY is required with PostgreSQL')));
    assert.deepEqual(problems({ DATABASE_URL: 'postgres://db/agentry', SECRETS_KEY: 'ab'.repeat(32) }), []);
    assert.deepEqual(problems({}), []);
    assert.equal(loadConfig({}).secretsKey, null);
    assert.ok(problems({ SECRETS_KEY: 'nope' }).some((problem) => problem.startsWith('SECRETS_KEY must be 32 bytes')));
  });
});
