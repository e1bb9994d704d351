import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * What the triggers on `agents` write belongs to the module that owns `agents`, the registry: a
 * module's triggers write only its own tables. The change log and the full-text documents (0006,
 * watched columns as 0008 left them) are renamed for the registry, and the triggers recreated under
 * its names with the same bodies: same watched columns, same document contents, every row and
 * sequence kept. Discovery reads both through the registry's read model.
 *
 *  - `discovery_changes` -> `agent_changes` (an append-only log of changed agent ids, read by each
 *    node from its last position, so `seq` goes on from where it was);
 *  - `discovery_documents` -> `agent_search_documents`, and on SQLite its FTS5 index `discovery_fts` ->
 *    `agent_search_fts`. An FTS5 table names its content table in its own definition, which a rename
 *    of the content table does not rewrite: the index is created afresh over the renamed documents
 *    and rebuilt from them (same rowids, so the same tokens, statistics and bm25 scores).
 */
/** The columns the update triggers watch since 0008; a migration keeps its own copy, since it must never change. */
const WATCHED_COLUMNS =
  'name, slug, description, protocols, categories, capabilities, tags, visibility, org_id, status, owner_id, registration_pubkey, key_verified_at';

export const agentSearchInRegistry: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    if (dialect === 'postgres') await upPostgres(db);
    else await upSqlite(db);
  },
};

/** The text the full-text index holds for capability terms, from the row `prefix` names (`new.` in a trigger). */
const sqliteTerms = (prefix: 'new.' | '') => `${prefix}capabilities || ' ' || ${prefix}tags || ' ' || ${prefix}categories`;

async function upSqlite(db: Kysely<unknown>) {
  const statements = [
    'DROP TRIGGER agents_discovery_ai',
    'DROP TRIGGER agents_discovery_au',
    'DROP TRIGGER agents_discovery_ad',
    'DROP TRIGGER discovery_documents_ai',
    'DROP TRIGGER discovery_documents_ad',
    'DROP TRIGGER discovery_documents_au',
    'DROP TABLE discovery_fts',
    // A rename carries the AUTOINCREMENT counters (sqlite_sequence) along.
    'ALTER TABLE discovery_changes RENAME TO agent_changes',
    'ALTER TABLE discovery_documents RENAME TO agent_search_documents',
    `CREATE VIRTUAL TABLE agent_search_fts USING fts5(name, description, terms, content='agent_search_documents', content_rowid='doc_id', tokenize='porter unicode61')`,
    `INSERT INTO agent_search_fts(agent_search_fts) VALUES ('rebuild')`,
    `CREATE TRIGGER agent_search_documents_ai AFTER INSERT ON agent_search_documents BEGIN
       INSERT INTO agent_search_fts(rowid, name, description, terms) VALUES (new.doc_id, new.name, new.description, new.terms);
     END`,
    `CREATE TRIGGER agent_search_documents_ad AFTER DELETE ON agent_search_documents BEGIN
       INSERT INTO agent_search_fts(agent_search_fts, rowid, name, description, terms) VALUES ('delete', old.doc_id, old.name, old.description, old.terms);
     END`,
    `CREATE TRIGGER agent_search_documents_au AFTER UPDATE ON agent_search_documents BEGIN
       INSERT INTO agent_search_fts(agent_search_fts, rowid, name, description, terms) VALUES ('delete', old.doc_id, old.name, old.description, old.terms);
       INSERT INTO agent_search_fts(rowid, name, description, terms) VALUES (new.doc_id, new.name, new.description, new.terms);
     END`,
    `CREATE TRIGGER agents_changed_ai AFTER INSERT ON agents BEGIN
       INSERT INTO agent_search_documents(agent_id, name, description, terms) VALUES (new.id, new.name, new.description, ${sqliteTerms('new.')});
       INSERT INTO agent_changes(agent_id) VALUES (new.id);
     END`,
    `CREATE TRIGGER agents_changed_au AFTER UPDATE OF ${WATCHED_COLUMNS} ON agents BEGIN
       UPDATE agent_search_documents SET name = new.name, description = new.description, terms = ${sqliteTerms('new.')} WHERE agent_id = new.id;
       INSERT INTO agent_changes(agent_id) VALUES (new.id);
     END`,
    `CREATE TRIGGER agents_changed_ad AFTER DELETE ON agents BEGIN
       DELETE FROM agent_search_documents WHERE agent_id = old.id;
       INSERT INTO agent_changes(agent_id) VALUES (old.id);
     END`,
  ];
  // Kysely runs SQLite's migrations outside a transaction; this one drops what it rebuilds, so it
  // takes one: interrupted, the database keeps the tables and triggers of 0006, not half of each.
  await db.transaction().execute(async (tx) => {
    for (const statement of statements) await sql.raw(statement).execute(tx);
  });
}

async function upPostgres(db: Kysely<unknown>) {
  // Name and capability terms weigh A, the description B (as SQLite's bm25 column weights).
  const vector = (row: string) =>
    `setweight(to_tsvector('english', ${row}.name), 'A') || setweight(to_tsvector('english', ${row}.capabilities || ' ' || ${row}.tags || ' ' || ${row}.categories), 'A') || setweight(to_tsvector('english', ${row}.description), 'B')`;
  const statements = [
    'DROP TRIGGER agents_discovery ON agents',
    'DROP FUNCTION discovery_agent_changed()',
    'ALTER TABLE discovery_changes RENAME TO agent_changes',
    'ALTER SEQUENCE discovery_changes_seq_seq RENAME TO agent_changes_seq_seq',
    'ALTER INDEX discovery_changes_pkey RENAME TO agent_changes_pkey',
    'ALTER TABLE discovery_documents RENAME TO agent_search_documents',
    'ALTER INDEX discovery_documents_pkey RENAME TO agent_search_documents_pkey',
    'ALTER INDEX discovery_documents_search RENAME TO agent_search_documents_search',
    `CREATE FUNCTION agent_changed() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           DELETE FROM agent_search_documents WHERE agent_id = OLD.id;
           INSERT INTO agent_changes(agent_id) VALUES (OLD.id);
           RETURN OLD;
         END IF;
         INSERT INTO agent_search_documents(agent_id, search) VALUES (NEW.id, ${vector('NEW')})
           ON CONFLICT (agent_id) DO UPDATE SET search = EXCLUDED.search;
         INSERT INTO agent_changes(agent_id) VALUES (NEW.id);
         RETURN NEW;
       END $$`,
    `CREATE TRIGGER agents_changed AFTER INSERT OR DELETE OR UPDATE OF ${WATCHED_COLUMNS} ON agents FOR EACH ROW EXECUTE FUNCTION agent_changed()`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
