import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { postgresAgentsTrigger, sqliteAgentsUpdateTrigger, WATCHED_COLUMNS } from './0006_discovery.ts';
import type { Migration } from './index.ts';

/**
 * `agents.key_verified_at`: when possession of the agent's registration key was first proven (a
 * claim, a signed heartbeat, or an owner's key proof; docs/registry.md). Anyone can register someone
 * else's public key, so only agents with this set carry the trust of their key.
 *
 * Discovery ranks by it, so its in-memory index must hear of the change: the `agents` update trigger
 * of 0006 is recreated to watch this column too. It is set once per agent, so heartbeats still do not
 * fire the trigger.
 */
export const keyProof: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    await db.schema.alterTable('agents').addColumn('key_verified_at', 'text').execute();
    // A claim verified a signature by the registration key over its challenge: those keys are proven.
    await sql`UPDATE agents SET key_verified_at = claimed_at WHERE claimed_at IS NOT NULL`.execute(db);

    const watched = `${WATCHED_COLUMNS}, key_verified_at`;
    if (dialect === 'postgres') {
      await sql`DROP TRIGGER agents_discovery ON agents`.execute(db);
      await sql.raw(postgresAgentsTrigger(watched)).execute(db);
    } else {
      await sql`DROP TRIGGER agents_discovery_au`.execute(db);
      await sql.raw(sqliteAgentsUpdateTrigger(watched)).execute(db);
    }
  },
};
