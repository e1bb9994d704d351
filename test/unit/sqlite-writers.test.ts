/**
 * Two connections write the SQLite file: the request thread's and the receipt insert worker's. A
 * transaction that reads and then writes must not fail because the other connection committed in
 * between (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out): transactions take the write lock
 * when they begin.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';

// Its own SQLite file whatever the database under test: the rule is SQLite's.
describe('SQLite with a second writer', () => {
  let dir: string;
  let handle: DatabaseHandle;
  let other: SQLite.Database;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentry-writers-'));
    handle = openDatabase({ url: `sqlite:${join(dir, 'test.db')}` });
    await handle.migrate();
    other = new SQLite(join(dir, 'test.db'));
    other.pragma('busy_timeout = 0');
  });
  after(async () => {
    other.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a transaction that reads, then writes, commits even when the other connection tried to write in between', async () => {
    let otherWrote = false;
    await handle.transaction(async (tx) => {
      await tx.selectFrom('agent_changes').selectAll().execute();
      try {
        other.prepare("INSERT INTO agent_changes (agent_id) VALUES ('from-the-other-connection')").run();
        otherWrote = true;
      } catch (error) {
        // The other writer waits its turn (here: no busy timeout, so it is told at once).
        assert.match(String(error), /database is locked/);
      }
      await tx.insertInto('agent_changes').values({ agent_id: 'from-the-transaction' }).execute();
    });
    const ids = (await handle.db.selectFrom('agent_changes').select('agent_id').execute()).map((row) => row.agent_id);
    assert.ok(ids.includes('from-the-transaction'));
    assert.equal(otherWrote, false);
  });
});
