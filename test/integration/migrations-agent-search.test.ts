import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { agentRow } from '../../bench/lib.ts';
import { createDiscoveryStore } from '../../src/modules/discovery/index.ts';
import { openTestDatabase } from '../helpers/app.ts';

const agent = (id: string, name: string, description: string, capabilities: string[]) =>
  agentRow({
    id,
    name,
    slug: id,
    description,
    capabilities: JSON.stringify(capabilities),
    status: 'active',
    owner_id: null,
    registration_pubkey: null,
    delivery_mode: 'poll',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });

const QUERIES = [['summarize'], ['invoice', 'pdf'], ['night', 'owl'], ['email'], ['translate']];

/** The lexical search as it was written against the tables of migration 0006. */
async function searchBefore0020(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres', terms: string[]): Promise<Map<string, number>> {
  const { rows } =
    dialect === 'postgres'
      ? await sql<{ agent_id: string; score: number }>`
          SELECT agent_id, ts_rank(search, q) AS score
          FROM discovery_documents, to_tsquery('english', ${terms.join(' | ')}) q
          WHERE search @@ q
          ORDER BY score DESC LIMIT 10`.execute(db)
      : await sql<{ agent_id: string; score: number }>`
          SELECT d.agent_id, -bm25(discovery_fts, 3.0, 1.0, 2.0) AS score
          FROM discovery_fts JOIN discovery_documents d ON d.doc_id = discovery_fts.rowid
          WHERE discovery_fts MATCH ${terms.map((t) => `"${t}"`).join(' OR ')}
          ORDER BY score DESC LIMIT 10`.execute(db);
  return new Map(rows.map((r) => [r.agent_id, Number(r.score)]));
}

describe('migration 0020 on a database that already holds agents', () => {
  it('keeps search results and the change log under the registry names, and the triggers go on writing them', async () => {
    const database = await openTestDatabase();
    try {
      await database.migrate('0019_a2a_delivery');
      const { db, dialect } = database.handle;
      await db
        .insertInto('agents')
        .values([
          agent('summarizer', 'Inbox Summarizer', 'Summarizes long email threads.', ['summarize', 'email']),
          agent('invoices', 'Invoice Reader', 'Reads PDF invoices into rows.', ['extract', 'pdf']),
          agent('owl', 'Night Owl', 'Watches servers overnight and pages on call.', ['monitor']),
          agent('gone', 'Translator', 'Translates email replies.', ['translate', 'email']),
        ])
        .execute();
      await db.updateTable('agents').set({ description: 'Summarizes long email threads and invoices.' }).where('id', '=', 'summarizer').execute();
      // Heartbeats are not a change search reads.
      await db.updateTable('agents').set({ last_seen_at: '2026-01-02T00:00:00.000Z' }).where('id', '=', 'owl').execute();
      await db.deleteFrom('agents').where('id', '=', 'gone').execute();

      const old = db as unknown as Kysely<unknown>;
      const { rows: changeRows } = await sql<{ seq: number | string; agent_id: string }>`SELECT seq, agent_id FROM discovery_changes ORDER BY seq`.execute(old);
      const changes = changeRows.map((r) => ({ seq: Number(r.seq), agentId: r.agent_id }));
      assert.deepEqual(
        changes.map((c) => c.agentId),
        ['summarizer', 'invoices', 'owl', 'gone', 'summarizer', 'gone'],
      );
      const results = new Map<string, Map<string, number>>();
      for (const terms of QUERIES) results.set(terms.join(' '), await searchBefore0020(old, dialect, terms));
      assert.deepEqual([...results.get('summarize')!.keys()], ['summarizer']);
      assert.deepEqual(results.get('translate')!.size, 0);

      await database.migrate();
      const store = createDiscoveryStore(db, dialect);
      assert.deepEqual(await store.agentChanges.since(0, []), changes);
      for (const terms of QUERIES) assert.deepEqual(await store.lexical(terms, 10), results.get(terms.join(' ')), terms.join(' '));

      const triggers =
        dialect === 'postgres'
          ? await sql<{ name: string }>`SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'agents'::regclass AND NOT tgisinternal ORDER BY tgname`.execute(
              db,
            )
          : await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'agents' ORDER BY name`.execute(db);
      // Later migrations add triggers of their own (0030: the change feed); these are 0020's.
      assert.deepEqual(
        triggers.rows.map((r) => r.name).filter((name) => name.startsWith('agents_changed')),
        dialect === 'postgres' ? ['agents_changed'] : ['agents_changed_ad', 'agents_changed_ai', 'agents_changed_au'],
      );

      const last = changes.at(-1)!.seq;
      await db
        .insertInto('agents')
        .values(agent('translator', 'Polyglot', 'Translates replies into forty languages.', ['translate']))
        .execute();
      await db.updateTable('agents').set({ name: 'Dawn Owl' }).where('id', '=', 'owl').execute();
      await db.updateTable('agents').set({ key_verified_at: '2026-01-03T00:00:00.000Z' }).where('id', '=', 'invoices').execute();
      await db.updateTable('agents').set({ last_seen_at: '2026-01-03T00:00:00.000Z' }).where('id', '=', 'summarizer').execute();
      await db.deleteFrom('agents').where('id', '=', 'summarizer').execute();

      const after = await store.agentChanges.since(last, []);
      assert.deepEqual(
        after.map((c) => c.agentId),
        ['translator', 'owl', 'invoices', 'summarizer'],
      );
      assert.ok(after.every((c) => c.seq > last));
      assert.equal(await store.agentChanges.last(), after.at(-1)!.seq);
      assert.deepEqual([...(await store.lexical(['translate'], 10)).keys()], ['translator']);
      assert.deepEqual([...(await store.lexical(['dawn'], 10)).keys()], ['owl']);
      assert.equal((await store.lexical(['night'], 10)).size, 0);
      assert.equal((await store.lexical(['summarize'], 10)).size, 0);
      assert.deepEqual([...(await store.lexical(['pdf'], 10)).keys()], ['invoices']);
      if (dialect === 'sqlite') await sql`INSERT INTO agent_search_fts(agent_search_fts) VALUES ('integrity-check')`.execute(db);
    } finally {
      await database.close();
    }
  });
});
