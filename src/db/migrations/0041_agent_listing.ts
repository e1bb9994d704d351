import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Whether an agent is listed (docs/moderation.md):
 *  - `agents.listing`: `listed`, `pending` (waiting for a moderator's approval), `rejected` or
 *    `delisted`, with `listing_reason` (the moderators' reason, or `new`/`changed` while pending) and
 *    `listing_since`. Only a public, listed agent is shown to everyone; the others only to their owner.
 *  - `agents.owner_limited`: 1 while the owner's account is limited, which keeps the agent out of discovery.
 * Both are changes discovery reads (the change log of 0020), and `listing` is one mirrors read: the
 * feed and MCP versions of 0030 now treat an agent as public only while it is also listed, so a
 * delisting reaches mirrors as a removal.
 *  - `instance_policies`: the admins' settings (agent listing, sign-up, new-account limits, automatic hold).
 */
// The feed's columns and statements as migration 0030 wrote them; a migration never imports another.
const FEED_COLUMNS =
  'name, slug, description, long_description, endpoint, protocols, categories, capabilities, tags, docs_url, manifest_url, auth_type, version, ' +
  'visibility, org_id, input_schema, twitter_url, status, owner_id, registration_pubkey, claimed_at, key_verified_at, delivery_mode, ' +
  'webhook_secret, auth_credential, price_per_task_cents, currency, manifest_imported_at, manifest_fields';
const MCP_COLUMNS = 'name, slug, description, endpoint, protocols, version, visibility, mcp_server_name';
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

export const agentListing: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const columns = [
      `ALTER TABLE agents ADD COLUMN listing TEXT NOT NULL DEFAULT 'listed'`,
      'ALTER TABLE agents ADD COLUMN listing_reason TEXT',
      'ALTER TABLE agents ADD COLUMN listing_since TEXT',
      'ALTER TABLE agents ADD COLUMN owner_limited INTEGER NOT NULL DEFAULT 0',
      `CREATE INDEX agents_listing_pending ON agents (listing_since) WHERE listing = 'pending'`,
      'CREATE TABLE instance_policies (name TEXT PRIMARY KEY, value TEXT NOT NULL, updated_by TEXT, updated_at TEXT NOT NULL)',
    ];
    const statements = [...columns, ...(dialect === 'postgres' ? postgresTriggers() : sqliteTriggers())];
    // PostgreSQL runs each migration in a transaction already; on SQLite the triggers are dropped and made again in one.
    if (dialect === 'postgres') for (const statement of statements) await sql.raw(statement).execute(db);
    else
      await db.transaction().execute(async (tx) => {
        for (const statement of statements) await sql.raw(statement).execute(tx);
      });
  },
};

function sqliteTriggers(): string[] {
  const shown = (row: 'new' | 'old') => `(${row}.visibility = 'public' AND ${row}.listing = 'listed')`;
  const mcpListed = (row: 'new' | 'old') =>
    `(${shown(row)} AND ${row}.endpoint IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(${row}.protocols) WHERE value = 'mcp'))`;
  return [
    `CREATE TRIGGER agents_listing_changed AFTER UPDATE OF listing, owner_limited ON agents BEGIN
       INSERT INTO agent_changes(agent_id) VALUES (new.id);
     END`,
    ...[
      'agents_feed_ai',
      'agents_feed_au',
      'agents_feed_ad',
      'agents_feed_examples',
      'agents_mcp_ai',
      'agents_mcp_au',
      'agents_mcp_unlisted',
      'agents_mcp_ad',
    ].map((name) => `DROP TRIGGER ${name}`),
    `CREATE TRIGGER agents_feed_ai AFTER INSERT ON agents WHEN ${shown('new')} BEGIN
       INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, 1, new.updated_at);
     END`,
    `CREATE TRIGGER agents_feed_au AFTER UPDATE OF ${FEED_COLUMNS}, examples, listing ON agents WHEN ${shown('old')} OR ${shown('new')} BEGIN
       INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, ${shown('new')}, new.updated_at);
     END`,
    `CREATE TRIGGER agents_feed_ad AFTER DELETE ON agents WHEN ${shown('old')} BEGIN
       INSERT INTO agent_feed (agent_id, public, at) VALUES (old.id, 0, ${SQLITE_NOW});
     END`,
    `CREATE TRIGGER agents_mcp_ai AFTER INSERT ON agents WHEN ${mcpListed('new')} BEGIN ${sqliteKeepVersion} END`,
    `CREATE TRIGGER agents_mcp_au AFTER UPDATE OF ${MCP_COLUMNS}, listing ON agents WHEN ${mcpListed('new')} BEGIN ${sqliteKeepVersion} END`,
    `CREATE TRIGGER agents_mcp_unlisted AFTER UPDATE OF ${MCP_COLUMNS}, listing ON agents WHEN ${mcpListed('old')} AND NOT ${mcpListed('new')} BEGIN
       UPDATE agent_mcp_versions SET deleted = 1, updated_at = new.updated_at WHERE agent_id = new.id AND deleted = 0;
     END`,
    `CREATE TRIGGER agents_mcp_ad AFTER DELETE ON agents WHEN ${mcpListed('old')} BEGIN
       UPDATE agent_mcp_versions SET deleted = 1, updated_at = ${SQLITE_NOW} WHERE agent_id = old.id AND deleted = 0;
     END`,
  ];
}

function postgresTriggers(): string[] {
  const shown = (row: 'NEW' | 'OLD') => `(${row}.visibility = 'public' AND ${row}.listing = 'listed')`;
  const listed = (row: 'NEW' | 'OLD') => `(${shown(row)} AND ${row}.endpoint IS NOT NULL AND ${row}.protocols::jsonb ? 'mcp')`;
  const now = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const txid = 'pg_current_xact_id()::text::bigint';
  return [
    'CREATE TRIGGER agents_listing_changed AFTER UPDATE OF listing, owner_limited ON agents FOR EACH ROW EXECUTE FUNCTION agent_changed()',
    `CREATE OR REPLACE FUNCTION agent_feed_changed() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           IF ${shown('OLD')} THEN
             INSERT INTO agent_feed (txid, agent_id, public, at) VALUES (${txid}, OLD.id, 0, ${now});
           END IF;
           IF ${listed('OLD')} THEN
             UPDATE agent_mcp_versions SET deleted = 1, updated_at = ${now} WHERE agent_id = OLD.id AND deleted = 0;
           END IF;
           RETURN OLD;
         END IF;
         IF ${shown('NEW')} OR (TG_OP = 'UPDATE' AND ${shown('OLD')}) THEN
           INSERT INTO agent_feed (txid, agent_id, public, at) VALUES (${txid}, NEW.id, (${shown('NEW')})::int, NEW.updated_at);
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
    'CREATE TRIGGER agents_feed_listing AFTER UPDATE OF listing ON agents FOR EACH ROW EXECUTE FUNCTION agent_feed_changed()',
  ];
}
