import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

/**
 * Always SQLite, whichever database the rest of the suite runs on: this is about the files the
 * service creates for it.
 */
describe('SQLite files', () => {
  let previousUmask: number;
  let root: string;
  before(() => {
    // The usual umask, which would leave files the service does not restrict readable by everyone.
    previousUmask = process.umask(0o022);
    root = mkdtempSync(join(tmpdir(), 'agentry-files-'));
  });
  after(() => {
    process.umask(previousUmask);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the data folder, the database and its WAL and SHM readable by the owner only', async () => {
    const folder = join(root, 'var', 'data');
    const file = join(folder, 'agentry.db');
    const app = await buildApp(loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', SIGNATURE_THREADS: '0' }), { logger: false });
    try {
      const signup = await app.server.inject({
        method: 'POST',
        url: '/v1/auth/signup',
        payload: { email: 'files@example.test', password: 'correct horse battery' },
      });
      assert.equal(signup.statusCode, 201);
      const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
      assert.equal(mode(join(root, 'var')), '700');
      assert.equal(mode(folder), '700');
      for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(path), '600', path);
    } finally {
      await app.close();
    }
  });
});
