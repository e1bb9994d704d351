import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Completed work as discovery evidence (docs/discovery.md, "Completed work"):
 *  - `discovery_work_evidence`: one row per well-rated completed task that counts for its agent: the
 *    task's words (title and description, and the search that led to it), their sentence vectors
 *    (made once, when the rating is given) and the model that made them. Foreign keys remove a row
 *    with its task, agent or requester account. Never read by any route. `audience` is whom the
 *    agent was visible to when the task was rated (`public`, `private`, `org:<id>`): evidence given
 *    while it was private or an org's counts only while it still is.
 *  - its lexical index: FTS5 over the words on SQLite, a generated tsvector with a GIN index on
 *    PostgreSQL;
 *  - `discovery_work_changes`: agents whose evidence changed (rows added or removed, cascades
 *    included, by triggers), read by every node like the registry's change log;
 *  - `discovery_search_opt_outs`: accounts that turned "let my completed tasks improve search" off;
 *  - `tasks.search_query`: the search that led a person to the task's form (optional, write-only).
 */
export const discoveryWorkEvidence: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const statements =
      dialect === 'postgres'
        ? [
            'ALTER TABLE tasks ADD COLUMN search_query TEXT',
            `CREATE TABLE discovery_work_evidence (
               id BIGSERIAL PRIMARY KEY,
               task_id TEXT NOT NULL UNIQUE REFERENCES tasks(id) ON DELETE CASCADE,
               agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
               requester_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
               text TEXT NOT NULL,
               search_query TEXT,
               audience TEXT NOT NULL,
               vector_model TEXT,
               vector BYTEA,
               query_vector BYTEA,
               rated_at TEXT NOT NULL,
               search TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text || ' ' || coalesce(search_query, ''))) STORED
             )`,
            'CREATE INDEX discovery_work_evidence_search ON discovery_work_evidence USING GIN (search)',
            'CREATE INDEX discovery_work_evidence_agent ON discovery_work_evidence (agent_id, rated_at)',
            'CREATE INDEX discovery_work_evidence_requester ON discovery_work_evidence (requester_id)',
            'CREATE TABLE discovery_work_changes (seq BIGSERIAL PRIMARY KEY, agent_id TEXT NOT NULL)',
            `CREATE FUNCTION discovery_work_changed() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF TG_OP = 'DELETE' THEN
                 INSERT INTO discovery_work_changes(agent_id) VALUES (OLD.agent_id);
                 RETURN OLD;
               END IF;
               INSERT INTO discovery_work_changes(agent_id) VALUES (NEW.agent_id);
               RETURN NEW;
             END $$`,
            'CREATE TRIGGER discovery_work_evidence_changed AFTER INSERT OR DELETE ON discovery_work_evidence FOR EACH ROW EXECUTE FUNCTION discovery_work_changed()',
            'CREATE TABLE discovery_search_opt_outs (account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE, at TEXT NOT NULL)',
          ]
        : [
            'ALTER TABLE tasks ADD COLUMN search_query TEXT',
            `CREATE TABLE discovery_work_evidence (
               id INTEGER PRIMARY KEY AUTOINCREMENT,
               task_id TEXT NOT NULL UNIQUE REFERENCES tasks(id) ON DELETE CASCADE,
               agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
               requester_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
               text TEXT NOT NULL,
               search_query TEXT,
               audience TEXT NOT NULL,
               vector_model TEXT,
               vector BLOB,
               query_vector BLOB,
               rated_at TEXT NOT NULL
             )`,
            'CREATE INDEX discovery_work_evidence_agent ON discovery_work_evidence (agent_id, rated_at)',
            'CREATE INDEX discovery_work_evidence_requester ON discovery_work_evidence (requester_id)',
            `CREATE VIRTUAL TABLE discovery_work_fts USING fts5(text, search_query, content='discovery_work_evidence', content_rowid='id', tokenize='porter unicode61')`,
            'CREATE TABLE discovery_work_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL)',
            // Rows are written once and never change their words (only their vectors), so no update trigger.
            `CREATE TRIGGER discovery_work_evidence_ai AFTER INSERT ON discovery_work_evidence BEGIN
               INSERT INTO discovery_work_fts(rowid, text, search_query) VALUES (new.id, new.text, new.search_query);
               INSERT INTO discovery_work_changes(agent_id) VALUES (new.agent_id);
             END`,
            `CREATE TRIGGER discovery_work_evidence_ad AFTER DELETE ON discovery_work_evidence BEGIN
               INSERT INTO discovery_work_fts(discovery_work_fts, rowid, text, search_query) VALUES ('delete', old.id, old.text, old.search_query);
               INSERT INTO discovery_work_changes(agent_id) VALUES (old.agent_id);
             END`,
            'CREATE TABLE discovery_search_opt_outs (account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE, at TEXT NOT NULL)',
          ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
