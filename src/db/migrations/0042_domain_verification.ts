import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Verified domains (docs/registry.md, "Identity levels"):
 *
 *  - `agents.verified_domain` and `domain_verified_at`: the endpoint host whose control the owner
 *    proved, and when first proven. Agent views show it, so a change of it is a change discovery
 *    reads (the change log of 0020) and mirrors read (the feed of 0030): each log gets a trigger on
 *    the new column, as 0031 did for `examples`.
 *  - `agent_domain_proofs`: the token the owner serves for the agent and the state of its daily
 *    re-check. Kept apart from `agents` so that a re-check writes no row the feeds watch.
 */
export const domainVerification: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const table = `CREATE TABLE agent_domain_proofs (
       agent_id TEXT PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
       domain TEXT NOT NULL,
       token TEXT NOT NULL,
       created_at TEXT NOT NULL,
       checked_at TEXT,
       failing_since TEXT,
       last_failure TEXT)`;
    const statements =
      dialect === 'postgres'
        ? [
            'ALTER TABLE agents ADD COLUMN verified_domain TEXT',
            'ALTER TABLE agents ADD COLUMN domain_verified_at TEXT',
            table,
            'CREATE INDEX agent_domain_proofs_checked ON agent_domain_proofs (checked_at)',
            'CREATE TRIGGER agents_domain_changed AFTER UPDATE OF verified_domain ON agents FOR EACH ROW EXECUTE FUNCTION agent_changed()',
            'CREATE TRIGGER agents_feed_domain AFTER UPDATE OF verified_domain ON agents FOR EACH ROW EXECUTE FUNCTION agent_feed_changed()',
          ]
        : [
            'ALTER TABLE agents ADD COLUMN verified_domain TEXT',
            'ALTER TABLE agents ADD COLUMN domain_verified_at TEXT',
            table,
            'CREATE INDEX agent_domain_proofs_checked ON agent_domain_proofs (checked_at)',
            `CREATE TRIGGER agents_domain_changed AFTER UPDATE OF verified_domain ON agents BEGIN
               INSERT INTO agent_changes(agent_id) VALUES (new.id);
             END`,
            // Mirrors see an agent only while it is public and listed (migration 0041).
            `CREATE TRIGGER agents_feed_domain AFTER UPDATE OF verified_domain ON agents
               WHEN (old.visibility = 'public' AND old.listing = 'listed') OR (new.visibility = 'public' AND new.listing = 'listed') BEGIN
               INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, new.visibility = 'public' AND new.listing = 'listed', new.updated_at);
             END`,
          ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
