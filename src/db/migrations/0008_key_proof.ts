import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * `agents.key_verified_at`: when possession of the agent's registration key was first proven (a
 * claim, a signed heartbeat, or an owner's key proof; docs/registry.md). Anyone can register someone
 * else's public key, so only agents with this set carry the trust of their key.
 *
 * Discovery ranks by it, so its in-memory index must hear of the change: the `agents` update trigger
 * of 0006 is recreated to watch this column too. It is set once per agent, so heartbeats still do not
 * fire the trigger.
 */
/** The columns 0006's update triggers watched; a migration keeps its own copy, since it must never change. */
const WATCHED_COLUMNS_OF_0006 = 'name, slug, description, protocols, categories, capabilities, tags, visibility, org_id, status, owner_id, registration_pubkey';

export const keyProof: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    await db.schema.alterTable('agents').addColumn('key_verified_at', 'text').execute();
    // A claim verified a signature by the registration key over its challenge: those keys are proven.
    await sql`UPDATE agents SET key_verified_at = claimed_at WHERE claimed_at IS NOT NULL`.execute(db);

    const watched = `${WATCHED_COLUMNS_OF_0006}, key_verified_at`;
    if (dialect === 'postgres') {
      await sql`DROP TRIGGER agents_discovery ON agents`.execute(db);
      await sql
        .raw(`CREATE TRIGGER agents_discovery AFTER INSERT OR DELETE OR UPDATE OF ${watched} ON agents FOR EACH ROW EXECUTE FUNCTION discovery_agent_changed()`)
        .execute(db);
    } else {
      await sql`DROP TRIGGER agents_discovery_au`.execute(db);
      await sql
        .raw(
          `CREATE TRIGGER agents_discovery_au AFTER UPDATE OF ${watched} ON agents BEGIN
       UPDATE discovery_documents SET name = new.name, description = new.description, terms = new.capabilities || ' ' || new.tags || ' ' || new.categories WHERE agent_id = new.id;
       INSERT INTO discovery_changes(agent_id) VALUES (new.id);
     END`,
        )
        .execute(db);
    }
  },
};
