import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * What mirrors read, kept by triggers on `agents` (the registry's) in the transaction of every change:
 *
 *  - `agent_feed`: one row per change of a public agent, or of an agent that was public before the
 *    change (so leaving `public` is recorded, and an agent that was never public leaves no trace). On
 *    PostgreSQL each row carries the id of the transaction that wrote it: sequence numbers are taken
 *    before commit, so the feed is read in (transaction, seq) order and only up to the oldest
 *    transaction still running, which makes the order final for every row it hands out.
 *  - `agent_mcp_versions`: the MCP Registry view of agents that speak MCP at a public endpoint, one
 *    row per version an agent has been listed at. Each row keeps what was public at that version;
 *    a change while the agent is not listed writes nothing, and losing the listing (deleted, hidden,
 *    no longer MCP, no endpoint) marks every version deleted.
 */
const FEED_COLUMNS =
  'name, slug, description, long_description, endpoint, protocols, categories, capabilities, tags, docs_url, manifest_url, auth_type, version, ' +
  'visibility, org_id, input_schema, twitter_url, status, owner_id, registration_pubkey, claimed_at, key_verified_at, delivery_mode, ' +
  'webhook_secret, auth_credential, price_per_task_cents, currency, manifest_imported_at, manifest_fields';
const MCP_COLUMNS = 'name, slug, description, endpoint, protocols, version, visibility, mcp_server_name';

export const agentFeed: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    if (dialect === 'postgres') await upPostgres(db);
    else await upSqlite(db);
  },
};

const sqliteListed = (row: 'new' | 'old') =>
  `(${row}.visibility = 'public' AND ${row}.endpoint IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(${row}.protocols) WHERE value = 'mcp'))`;
const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** Writes the listed row's current version (kept as first published) and makes it the latest. */
const sqliteKeepVersion = `
  INSERT OR IGNORE INTO agent_mcp_versions (agent_id, version, server_name, slug, name, description, endpoint, published_at, updated_at, is_latest, deleted)
    VALUES (new.id, new.version, new.mcp_server_name, new.slug, new.name, new.description, new.endpoint, new.updated_at, new.updated_at, 1, 0);
  UPDATE agent_mcp_versions SET server_name = new.mcp_server_name, slug = new.slug, name = new.name, description = new.description,
    endpoint = new.endpoint, updated_at = new.updated_at, deleted = 0 WHERE agent_id = new.id AND version = new.version
    AND (server_name IS NOT new.mcp_server_name OR slug IS NOT new.slug OR name IS NOT new.name OR description IS NOT new.description
      OR endpoint IS NOT new.endpoint OR deleted <> 0);
  UPDATE agent_mcp_versions SET is_latest = (version = new.version) WHERE agent_id = new.id AND is_latest <> (version = new.version);`;

async function upSqlite(db: Kysely<unknown>) {
  const statements = [
    'ALTER TABLE agents ADD COLUMN mcp_server_name TEXT',
    `CREATE TABLE agent_feed (seq INTEGER PRIMARY KEY AUTOINCREMENT, txid INTEGER NOT NULL DEFAULT 0, agent_id TEXT NOT NULL, public INTEGER NOT NULL, at TEXT NOT NULL)`,
    `CREATE TABLE agent_mcp_versions (
       agent_id TEXT NOT NULL, version TEXT NOT NULL, server_name TEXT, slug TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, endpoint TEXT NOT NULL,
       published_at TEXT NOT NULL, updated_at TEXT NOT NULL, is_latest INTEGER NOT NULL, deleted INTEGER NOT NULL,
       PRIMARY KEY (agent_id, version))`,
    'CREATE INDEX agent_mcp_versions_slug ON agent_mcp_versions (slug)',
    'CREATE INDEX agent_mcp_versions_server_name ON agent_mcp_versions (server_name)',
    'CREATE INDEX agent_mcp_versions_updated ON agent_mcp_versions (updated_at)',
    `INSERT INTO agent_feed (agent_id, public, at) SELECT id, 1, updated_at FROM agents WHERE visibility = 'public' ORDER BY created_at, id`,
    `INSERT INTO agent_mcp_versions (agent_id, version, slug, name, description, endpoint, published_at, updated_at, is_latest, deleted)
       SELECT id, version, slug, name, description, endpoint, created_at, updated_at, 1, 0 FROM agents new WHERE ${sqliteListed('new')}`,
    `CREATE TRIGGER agents_feed_ai AFTER INSERT ON agents WHEN new.visibility = 'public' BEGIN
       INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, 1, new.updated_at);
     END`,
    `CREATE TRIGGER agents_feed_au AFTER UPDATE OF ${FEED_COLUMNS} ON agents WHEN old.visibility = 'public' OR new.visibility = 'public' BEGIN
       INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, new.visibility = 'public', new.updated_at);
     END`,
    `CREATE TRIGGER agents_feed_ad AFTER DELETE ON agents WHEN old.visibility = 'public' BEGIN
       INSERT INTO agent_feed (agent_id, public, at) VALUES (old.id, 0, ${SQLITE_NOW});
     END`,
    `CREATE TRIGGER agents_mcp_ai AFTER INSERT ON agents WHEN ${sqliteListed('new')} BEGIN ${sqliteKeepVersion} END`,
    `CREATE TRIGGER agents_mcp_au AFTER UPDATE OF ${MCP_COLUMNS} ON agents WHEN ${sqliteListed('new')} BEGIN ${sqliteKeepVersion} END`,
    `CREATE TRIGGER agents_mcp_unlisted AFTER UPDATE OF ${MCP_COLUMNS} ON agents WHEN ${sqliteListed('old')} AND NOT ${sqliteListed('new')} BEGIN
       UPDATE agent_mcp_versions SET deleted = 1, updated_at = new.updated_at WHERE agent_id = new.id AND deleted = 0;
     END`,
    `CREATE TRIGGER agents_mcp_ad AFTER DELETE ON agents WHEN ${sqliteListed('old')} BEGIN
       UPDATE agent_mcp_versions SET deleted = 1, updated_at = ${SQLITE_NOW} WHERE agent_id = old.id AND deleted = 0;
     END`,
  ];
  await db.transaction().execute(async (tx) => {
    for (const statement of statements) await sql.raw(statement).execute(tx);
  });
}

async function upPostgres(db: Kysely<unknown>) {
  const listed = (row: 'NEW' | 'OLD') => `(${row}.visibility = 'public' AND ${row}.endpoint IS NOT NULL AND ${row}.protocols::jsonb ? 'mcp')`;
  const now = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const txid = 'pg_current_xact_id()::text::bigint';
  const statements = [
    'ALTER TABLE agents ADD COLUMN mcp_server_name TEXT',
    `CREATE TABLE agent_feed (seq BIGSERIAL PRIMARY KEY, txid BIGINT NOT NULL, agent_id TEXT NOT NULL, public INTEGER NOT NULL, at TEXT NOT NULL)`,
    'CREATE INDEX agent_feed_order ON agent_feed (txid, seq)',
    `CREATE TABLE agent_mcp_versions (
       agent_id TEXT NOT NULL, version TEXT NOT NULL, server_name TEXT, slug TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, endpoint TEXT NOT NULL,
       published_at TEXT NOT NULL, updated_at TEXT NOT NULL, is_latest INTEGER NOT NULL, deleted INTEGER NOT NULL,
       PRIMARY KEY (agent_id, version))`,
    'CREATE INDEX agent_mcp_versions_slug ON agent_mcp_versions (slug)',
    'CREATE INDEX agent_mcp_versions_server_name ON agent_mcp_versions (server_name)',
    'CREATE INDEX agent_mcp_versions_updated ON agent_mcp_versions (updated_at)',
    `INSERT INTO agent_feed (txid, agent_id, public, at) SELECT 0, id, 1, updated_at FROM agents WHERE visibility = 'public' ORDER BY created_at, id`,
    `INSERT INTO agent_mcp_versions (agent_id, version, slug, name, description, endpoint, published_at, updated_at, is_latest, deleted)
       SELECT id, version, slug, name, description, endpoint, created_at, updated_at, 1, 0 FROM agents NEW WHERE ${listed('NEW')}`,
    `CREATE FUNCTION agent_feed_changed() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           IF OLD.visibility = 'public' THEN
             INSERT INTO agent_feed (txid, agent_id, public, at) VALUES (${txid}, OLD.id, 0, ${now});
           END IF;
           IF ${listed('OLD')} THEN
             UPDATE agent_mcp_versions SET deleted = 1, updated_at = ${now} WHERE agent_id = OLD.id AND deleted = 0;
           END IF;
           RETURN OLD;
         END IF;
         IF NEW.visibility = 'public' OR (TG_OP = 'UPDATE' AND OLD.visibility = 'public') THEN
           INSERT INTO agent_feed (txid, agent_id, public, at) VALUES (${txid}, NEW.id, (NEW.visibility = 'public')::int, NEW.updated_at);
         END IF;
         IF ${listed('NEW')} THEN
           INSERT INTO agent_mcp_versions (agent_id, version, server_name, slug, name, description, endpoint, published_at, updated_at, is_latest, deleted)
             VALUES (NEW.id, NEW.version, NEW.mcp_server_name, NEW.slug, NEW.name, NEW.description, NEW.endpoint, NEW.updated_at, NEW.updated_at, 1, 0)
             ON CONFLICT (agent_id, version) DO UPDATE SET server_name = EXCLUDED.server_name, slug = EXCLUDED.slug, name = EXCLUDED.name,
               description = EXCLUDED.description, endpoint = EXCLUDED.endpoint, updated_at = EXCLUDED.updated_at, deleted = 0
             WHERE (agent_mcp_versions.server_name, agent_mcp_versions.slug, agent_mcp_versions.name, agent_mcp_versions.description,
                    agent_mcp_versions.endpoint, agent_mcp_versions.deleted)
               IS DISTINCT FROM (EXCLUDED.server_name, EXCLUDED.slug, EXCLUDED.name, EXCLUDED.description, EXCLUDED.endpoint, 0);
           UPDATE agent_mcp_versions SET is_latest = (version = NEW.version)::int WHERE agent_id = NEW.id AND is_latest <> (version = NEW.version)::int;
         ELSIF TG_OP = 'UPDATE' AND ${listed('OLD')} THEN
           UPDATE agent_mcp_versions SET deleted = 1, updated_at = NEW.updated_at WHERE agent_id = NEW.id AND deleted = 0;
         END IF;
         RETURN NEW;
       END $$`,
    `CREATE TRIGGER agents_feed_insert_delete AFTER INSERT OR DELETE ON agents FOR EACH ROW EXECUTE FUNCTION agent_feed_changed()`,
    `CREATE TRIGGER agents_feed_update AFTER UPDATE OF ${FEED_COLUMNS}, mcp_server_name ON agents FOR EACH ROW EXECUTE FUNCTION agent_feed_changed()`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
