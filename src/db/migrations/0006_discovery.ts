import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Discovery keeps two things in step with `agents`, by triggers so that every writer (registry,
 * claims, payments, anything later) is covered without knowing about search:
 *  - `discovery_documents`: the lexical index (FTS5 on SQLite, a weighted tsvector + GIN on PostgreSQL);
 *  - `discovery_changes`: an append-only log of changed agent ids, which each node reads from its last
 *    position to refresh its in-memory vector index, so a write on one node is searchable on every
 *    node in the next request.
 * Only columns that discovery reads fire the update triggers: heartbeats (last_seen_at) do not.
 */
const WATCHED_COLUMNS = 'name, slug, description, protocols, categories, capabilities, tags, visibility, org_id, status, owner_id, registration_pubkey';

/** The text the lexical index holds for capability terms, from the row `prefix` names (`new.` in a trigger). */
const sqliteTerms = (prefix: 'new.' | '') => `${prefix}capabilities || ' ' || ${prefix}tags || ' ' || ${prefix}categories`;

/** SQLite's update trigger on `agents`; 0008 recreates it when discovery reads more columns. */
const sqliteAgentsUpdateTrigger = (watchedColumns: string) =>
  `CREATE TRIGGER agents_discovery_au AFTER UPDATE OF ${watchedColumns} ON agents BEGIN
       UPDATE discovery_documents SET name = new.name, description = new.description, terms = ${sqliteTerms('new.')} WHERE agent_id = new.id;
       INSERT INTO discovery_changes(agent_id) VALUES (new.id);
     END`;

/** PostgreSQL's trigger on `agents` (its function, `discovery_agent_changed`, is created in upPostgres); recreated like SQLite's. */
const postgresAgentsTrigger = (watchedColumns: string) =>
  `CREATE TRIGGER agents_discovery AFTER INSERT OR DELETE OR UPDATE OF ${watchedColumns} ON agents FOR EACH ROW EXECUTE FUNCTION discovery_agent_changed()`;

export const discovery: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    // Each search reads the heartbeats since its last look.
    await db.schema.createIndex('agents_last_seen_at').on('agents').column('last_seen_at').execute();
    if (dialect === 'postgres') await upPostgres(db);
    else await upSqlite(db);
  },
};

async function upSqlite(db: Kysely<unknown>) {
  await sql`CREATE TABLE discovery_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL)`.execute(db);
  // doc_id is a stable integer key for FTS5 (agents.rowid may be renumbered by VACUUM).
  await sql`CREATE TABLE discovery_documents (doc_id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT NOT NULL, terms TEXT NOT NULL)`.execute(
    db,
  );
  await sql`CREATE VIRTUAL TABLE discovery_fts USING fts5(name, description, terms, content='discovery_documents', content_rowid='doc_id', tokenize='porter unicode61')`.execute(
    db,
  );

  const statements = [
    `CREATE TRIGGER discovery_documents_ai AFTER INSERT ON discovery_documents BEGIN
       INSERT INTO discovery_fts(rowid, name, description, terms) VALUES (new.doc_id, new.name, new.description, new.terms);
     END`,
    `CREATE TRIGGER discovery_documents_ad AFTER DELETE ON discovery_documents BEGIN
       INSERT INTO discovery_fts(discovery_fts, rowid, name, description, terms) VALUES ('delete', old.doc_id, old.name, old.description, old.terms);
     END`,
    `CREATE TRIGGER discovery_documents_au AFTER UPDATE ON discovery_documents BEGIN
       INSERT INTO discovery_fts(discovery_fts, rowid, name, description, terms) VALUES ('delete', old.doc_id, old.name, old.description, old.terms);
       INSERT INTO discovery_fts(rowid, name, description, terms) VALUES (new.doc_id, new.name, new.description, new.terms);
     END`,
    `CREATE TRIGGER agents_discovery_ai AFTER INSERT ON agents BEGIN
       INSERT INTO discovery_documents(agent_id, name, description, terms) VALUES (new.id, new.name, new.description, ${sqliteTerms('new.')});
       INSERT INTO discovery_changes(agent_id) VALUES (new.id);
     END`,
    sqliteAgentsUpdateTrigger(WATCHED_COLUMNS),
    `CREATE TRIGGER agents_discovery_ad AFTER DELETE ON agents BEGIN
       DELETE FROM discovery_documents WHERE agent_id = old.id;
       INSERT INTO discovery_changes(agent_id) VALUES (old.id);
     END`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await sql.raw(`INSERT INTO discovery_documents(agent_id, name, description, terms) SELECT id, name, description, ${sqliteTerms('')} FROM agents`).execute(db);
}

async function upPostgres(db: Kysely<unknown>) {
  await sql`CREATE TABLE discovery_changes (seq BIGSERIAL PRIMARY KEY, agent_id TEXT NOT NULL)`.execute(db);
  await sql`CREATE TABLE discovery_documents (agent_id TEXT PRIMARY KEY, search TSVECTOR NOT NULL)`.execute(db);
  await sql`CREATE INDEX discovery_documents_search ON discovery_documents USING GIN (search)`.execute(db);
  // Same weighting as SQLite's bm25 column weights: name and capability terms above description.
  const vector = (row: string) =>
    `setweight(to_tsvector('english', ${row}.name), 'A') || setweight(to_tsvector('english', ${row}.capabilities || ' ' || ${row}.tags || ' ' || ${row}.categories), 'A') || setweight(to_tsvector('english', ${row}.description), 'B')`;
  await sql
    .raw(
      `CREATE FUNCTION discovery_agent_changed() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           DELETE FROM discovery_documents WHERE agent_id = OLD.id;
           INSERT INTO discovery_changes(agent_id) VALUES (OLD.id);
           RETURN OLD;
         END IF;
         INSERT INTO discovery_documents(agent_id, search) VALUES (NEW.id, ${vector('NEW')})
           ON CONFLICT (agent_id) DO UPDATE SET search = EXCLUDED.search;
         INSERT INTO discovery_changes(agent_id) VALUES (NEW.id);
         RETURN NEW;
       END $$`,
    )
    .execute(db);
  await sql.raw(postgresAgentsTrigger(WATCHED_COLUMNS)).execute(db);
  await sql.raw(`INSERT INTO discovery_documents(agent_id, search) SELECT a.id, ${vector('a')} FROM agents a`).execute(db);
}
