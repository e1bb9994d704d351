import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Signed cards (docs/registry.md, "Signed cards"): `agents.card_signature`, the verified A2A 1.0
 * signature of the card the agent was registered or refreshed from (JSON: alg, kid, jku, checkedAt).
 * Agent views show it, so a change of it is a change discovery reads (the change log of 0020) and
 * mirrors read (the feed of 0030), as 0042 did for `verified_domain`.
 */
export const cardSignature: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const statements =
      dialect === 'postgres'
        ? [
            'ALTER TABLE agents ADD COLUMN card_signature TEXT',
            'CREATE TRIGGER agents_card_signature_changed AFTER UPDATE OF card_signature ON agents FOR EACH ROW EXECUTE FUNCTION agent_changed()',
            'CREATE TRIGGER agents_feed_card_signature AFTER UPDATE OF card_signature ON agents FOR EACH ROW EXECUTE FUNCTION agent_feed_changed()',
          ]
        : [
            'ALTER TABLE agents ADD COLUMN card_signature TEXT',
            `CREATE TRIGGER agents_card_signature_changed AFTER UPDATE OF card_signature ON agents BEGIN
               INSERT INTO agent_changes(agent_id) VALUES (new.id);
             END`,
            // Mirrors see an agent only while it is public and listed (migration 0041).
            `CREATE TRIGGER agents_feed_card_signature AFTER UPDATE OF card_signature ON agents
               WHEN (old.visibility = 'public' AND old.listing = 'listed') OR (new.visibility = 'public' AND new.listing = 'listed') BEGIN
               INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, new.visibility = 'public' AND new.listing = 'listed', new.updated_at);
             END`,
          ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
