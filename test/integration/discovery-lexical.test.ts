import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentRow } from '../../bench/lib.ts';
import { ownTables } from '../../src/db/tables.ts';
import { createLexicalSearch } from '../../src/modules/discovery/lexical.ts';
import type { AgentSearchReadModel } from '../../src/modules/registry/index.ts';
import { openTestDatabase } from '../helpers/app.ts';

const agent = (id: string, name: string, description: string) =>
  agentRow({
    id,
    name,
    slug: id,
    description,
    capabilities: JSON.stringify([]),
    status: 'active',
    owner_id: null,
    registration_pubkey: null,
    delivery_mode: 'poll',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });

describe('full-text rank: words found in too many documents take no part', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  before(async () => {
    database = await openTestDatabase();
    await database.migrate();
    await database.handle.db
      .insertInto('agents')
      .values([
        agent('mailer', 'Mail Sorter', 'Sorts email into folders.'),
        agent('replier', 'Reply Writer', 'Drafts email replies.'),
        agent('digest', 'Digest', 'Sends a daily email digest.'),
        agent('owl', 'Night Owl', 'Watches servers overnight.'),
      ])
      .execute();
  });
  after(() => database.close());

  it('ranks by every word while each is in few documents', async () => {
    const { dialect } = database.handle;
    const found = await createLexicalSearch(ownTables<AgentSearchReadModel>(database.handle.db), dialect)(['email', 'owl'], 10);
    assert.deepEqual([...found.keys()].sort(), ['digest', 'mailer', 'owl', 'replier']);
  });

  it('leaves out a word in more documents than the limit, and ranks by the rest', async () => {
    const { dialect } = database.handle;
    const db = ownTables<AgentSearchReadModel>(database.handle.db);
    const search = createLexicalSearch(db, dialect, { commonWordDocuments: 2 });
    assert.deepEqual([...(await search(['email', 'owl'], 10)).keys()], ['owl']);
    // A word at the limit still counts.
    const atLimit = createLexicalSearch(db, dialect, { commonWordDocuments: 3 });
    assert.deepEqual([...(await atLimit(['email'], 10)).keys()].sort(), ['digest', 'mailer', 'replier']);
    // Only common words: no full-text hit (the other signals still rank the query).
    assert.equal((await search(['email'], 10)).size, 0);
  });
});
