import { sql, type Kysely } from 'kysely';
import { registryLogEntry } from '@agentry/sdk/tlog';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

interface AgentThen {
  id: string;
  name: string;
  slug: string;
  status: string;
  owner_id: string | null;
  registration_pubkey: string | null;
  endpoint: string | null;
  delivery_mode: string;
  visibility: string;
  created_at: string;
}

/**
 * The registry log's queue of agent lifecycle events (modules/registry/lifecycle-log.ts), and every
 * existing agent's current state queued once as a `registered` event (at its registration time;
 * oldest first), which the registry sequencer logs on the first start. The event is written here as
 * the registry wrote a `registered` event when this migration was made (a migration never changes).
 */
export const registryLog: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const seq = dialect === 'postgres' ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT';
    const bigint = dialect === 'postgres' ? 'BIGINT' : 'INTEGER';
    await sql
      .raw(
        `CREATE TABLE registry_log_events (seq ${seq}, agent_id TEXT NOT NULL, event TEXT NOT NULL, entry TEXT NOT NULL,
        public INTEGER NOT NULL, created_at TEXT NOT NULL, log_index ${bigint})`,
      )
      .execute(db);
    await sql`CREATE INDEX registry_log_events_agent ON registry_log_events (agent_id, seq)`.execute(db);
    await sql`CREATE INDEX registry_log_events_pending ON registry_log_events (seq) WHERE log_index IS NULL`.execute(db);
    await sql`CREATE UNIQUE INDEX registry_log_events_index ON registry_log_events (log_index) WHERE log_index IS NOT NULL`.execute(db);
    const { rows: agents } = await sql<AgentThen>`SELECT id, name, slug, status, owner_id, registration_pubkey, endpoint, delivery_mode, visibility, created_at
      FROM agents ORDER BY created_at, id`.execute(db);
    const eventOf = (agent: AgentThen) => {
      const shown = agent.visibility === 'public';
      const values = shown
        ? {
            name: agent.name,
            slug: agent.slug,
            provisional: agent.status === 'provisional',
            ownerId: agent.owner_id,
            key: agent.registration_pubkey,
            endpoint: agent.endpoint,
            deliveryMode: agent.delivery_mode,
          }
        : {};
      const entry = registryLogEntry({ agentId: agent.id, event: 'registered', values, time: agent.created_at }).toString('utf8');
      return sql`(${agent.id}, 'registered', ${entry}, ${shown ? 1 : 0}, ${agent.created_at})`;
    };
    for (let at = 0; at < agents.length; at += 500)
      await sql`INSERT INTO registry_log_events (agent_id, event, entry, public, created_at)
        VALUES ${sql.join(agents.slice(at, at + 500).map(eventOf))}`.execute(db);
  },
};
