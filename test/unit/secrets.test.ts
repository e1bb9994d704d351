import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PASSWORD_COST, hashPassword, verifyPassword } from '../../src/lib/secrets.ts';

describe('password hashes', () => {
  it('are scrypt at N=2^15, r=8, p=1 unless told otherwise, with a fresh salt each time', async () => {
    assert.equal(PASSWORD_COST, 32768);
    const [first, second] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    assert.match(first, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first, second);
    assert.equal(await verifyPassword('correct horse', first), true);
    assert.equal(await verifyPassword('correct horsf', first), false);
  });

  it('verify at the cost each hash records, so hashes made at another cost still sign in', async () => {
    const cheap = await hashPassword('correct horse', 1024);
    assert.match(cheap, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse', cheap), true);
    assert.equal(await verifyPassword('wrong', cheap), false);
  });

  it('compare passwords in NFKC, so the same words typed on another keyboard match', async () => {
    const stored = await hashPassword('ﬁle caf\u00e9', 1024);
    assert.equal(await verifyPassword('file cafe\u0301', stored), true);
  });

  it('refuse a stored value that is not an scrypt hash', async () => {
    assert.equal(await verifyPassword('x', 'bcrypt$2b$10$abc'), false);
    assert.equal(await verifyPassword('x', ''), false);
  });
});
